import APNsEmulator
import APNsProtocol

/// Where each step of a push's fate goes as it happens: the farm's fate log, and the counts `/metrics` shows.
///
/// Its fields skip the dynamic exclusivity check (`@exclusivity(unchecked)`): `record` is its only writer and
/// runs under its shard's lock, never re-entered.
///
/// `@unchecked Sendable`: reached only under its shard's `Mutex` (the shard holds it in
/// `DeviceStore`, which that lock guards, and an `OSContext` exists only inside `DeviceFarm.withApp`).
final class FateRecorder: @unchecked Sendable {
    /// The newest fates (a ring: the oldest go once it is full).
    @exclusivity(unchecked) private(set) var log: FateLog
    /// Fate steps recorded since start (never trimmed).
    @exclusivity(unchecked) private(set) var counts = FateCounts()

    /// Numbers each step across the farm's shards.
    let sequence: FateSequence

    init(capacity: Int, sequence: FateSequence) {
        log = FateLog(capacity: capacity)
        self.sequence = sequence
    }

    func record(_ fate: PushFate) {
        counts.add(fate.fate)
        log.append(fate, seq: sequence.take())
    }

    /// A step recorded by the OS model, from the fields where it has them (see `FateLog.append`).
    func record(_ kind: PushFate.Kind, _ code: FateCode, _ reason: String, at: Millis, apnsId: String,
                deviceId: String, bundleId: String, token: String,
                notificationId: String?) {
        counts.add(kind)
        log.append(kind, code, reason, at: at, apnsId: apnsId, deviceId: deviceId, bundleId: bundleId, token: token,
                   notificationId: notificationId, seq: sequence.take())
    }
}
