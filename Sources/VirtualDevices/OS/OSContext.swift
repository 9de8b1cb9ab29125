import APNsEmulator
import APNsProtocol

/// Issues device tokens the APNs side will accept: the emulator's token registry, behind a protocol so
/// the OS model stays testable without one. Class-bound: every delivery copies it into an `OSContext`, and
/// copying a class-bound existential is a retain, not a copy through the conforming type's value witnesses.
public protocol TokenRegistrar: AnyObject, Sendable {
    /// A new token for `bundleId` in `environment`, registered so pushes to it are valid.
    func issueToken(bundleId: String, environment: APNsEnvironment, now: Millis) throws -> String
    /// The app was uninstalled (or the device restored): pushes to `token` get 410 Unregistered from `at`.
    func unregister(token: String, at: Millis) throws
    /// Whether `token` is still a valid token of `bundleId` (not deleted, unregistered or expired).
    func isRegistered(_ token: String, bundleId: String) -> Bool
}

/// What an app's OS model needs to know about its device and the moment.
///
/// Its three objects are held `unowned(unsafe)`: a context is built for every push, and holding them strongly
/// cost a retain and a release of each per push. Why they cannot dangle: the one place that builds a context,
/// `DeviceFarm.withApp`, passes it to a non-escaping closure and keeps it nowhere; while that closure runs the
/// farm holds the registrar (a `let`) and the farm's state, locked and borrowed `inout` by `withApp`, holds
/// the caches and the fate recorder (its `let`s), and nothing in the closure can replace that state.
struct OSContext {
    let deviceId: String
    let platform: Platform
    let online: Bool
    let now: Millis
    /// Background pushes a suspended app may receive per rolling hour (0: unlimited).
    let backgroundBudgetPerHour: Int
    unowned(unsafe) let registrar: any TokenRegistrar
    /// Uploaded files and parsed payloads (the farm's, read under its lock).
    unowned(unsafe) let caches: FarmCaches
    /// Where what happens to pushes is recorded, as it happens (the farm's, under its lock).
    unowned(unsafe) let fates: FateRecorder

    /// The parsed content of `payload` (the farm's cache). Called through an unretained reference: reading the
    /// `unowned(unsafe)` field for a call retained and released the cache around it on every push.
    func content(of payload: [UInt8]) -> PushContent {
        Unmanaged.passUnretained(caches)._withUnsafeGuaranteedRef { $0.content(of: payload) }
    }

    /// Records a fate step (the farm's recorder), through an unretained reference as `content(of:)` reads.
    func record(apnsId: String, bundleId: String, token: String, _ kind: PushFate.Kind, _ reason: String,
                notificationId: String?, notificationIdIsApnsId: Bool = false) {
        Unmanaged.passUnretained(fates)._withUnsafeGuaranteedRef {
            $0.record(apnsId: apnsId, deviceId: deviceId, bundleId: bundleId, token: token, kind, reason, at: now,
                      notificationId: notificationId, notificationIdIsApnsId: notificationIdIsApnsId)
        }
    }

    /// Loads an attachment URL for a service extension: a file the emulator serves, or a `file://` path.
    func fetchAttachment(_ url: String) -> Result<[UInt8], AttachmentValidator.Refused> {
        caches.fetch(url)
    }
}
