import APNsEmulator
import APNsProtocol

/// One step of what happened to a push on a device, linked to the APNs request by `apnsId`.
///
/// A push can have several steps (`stored` while the device was offline, then `delivered`, then
/// `shown`); the last one is its fate. `reason` says why in words a test failure can show.
public struct PushFate: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Held by APNs for an offline device.
        case stored
        /// Held by APNs (priority 5/1 delay) or by the device (background budget).
        case deferred
        /// Reached the device and the app (background push, or the OS got it).
        case delivered
        /// Displayed: banner and/or notification centre list.
        case shown
        /// Reached the device and was deliberately not displayed (not authorized, willPresent said no).
        case suppressed
        /// Replaced by a newer push before or after display (offline storage, collapse id, budget).
        case coalesced
        /// Its expiration passed before the device could get it.
        case expired
        /// Discarded by the device (force-quit app, app not installed any more).
        case dropped
    }

    public var apnsId: String
    public var deviceId: String
    public var bundleId: String
    public var token: String
    public var fate: Kind
    /// Why, as a code (`reason` is the same in words).
    public var code: FateCode
    public var reason: String
    public var at: Millis
    /// The notification's identifier on the device, when it reached the notification centre.
    public var notificationId: String?

    public init(apnsId: String, deviceId: String, bundleId: String, token: String, fate: Kind, code: FateCode,
                reason: String, at: Millis, notificationId: String? = nil) {
        self.code = code
        self.apnsId = apnsId
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.token = token
        self.fate = fate
        self.reason = reason
        self.at = at
        self.notificationId = notificationId
    }
}
