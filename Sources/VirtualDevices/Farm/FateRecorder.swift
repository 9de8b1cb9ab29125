import APNsEmulator
import APNsProtocol

/// Where each step of a push's fate goes as it happens: the farm's fate log, and the counts `/metrics` shows.
///
/// The OS model records through its `OSContext` rather than returning arrays of `PushFate` for the farm to
/// record: every push shown on a device built a `PushFate` (five strings retained), appended it to an array,
/// moved it out and destroyed it once encoded (~2% of the CPU of such a push). Its fields are now encoded where
/// they lie.
///
/// `@unchecked Sendable`: like `FarmCaches`, reached only under the device farm's `Mutex` (the farm holds it in
/// `DeviceStore`, which that lock guards, and an `OSContext` exists only inside `DeviceFarm.withApp`).
final class FateRecorder: @unchecked Sendable {
    /// The newest fates (a ring: the oldest go once it is full).
    private(set) var log: FateLog
    /// Fate steps recorded since start (never trimmed).
    private(set) var counts = FateCounts()

    init(capacity: Int) {
        log = FateLog(capacity: capacity)
    }

    func record(apnsId: String, deviceId: String, bundleId: String, token: String, _ kind: PushFate.Kind,
                _ reason: String, at: Millis, notificationId: String? = nil, notificationIdIsApnsId: Bool = false) {
        counts.add(kind)
        log.append(apnsId: apnsId, deviceId: deviceId, bundleId: bundleId, token: token, kind: kind, reason: reason,
                   at: at, notificationId: notificationId, notificationIdIsApnsId: notificationIdIsApnsId)
    }
}
