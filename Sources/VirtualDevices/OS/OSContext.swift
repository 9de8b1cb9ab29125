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

/// What an app's OS model needs to know about its device and the moment. Built by `DeviceFarm.withApp`
/// for one visit of the app (one call, or a run of pushes with `now` moved on for each), under its shard's lock
/// (which guards the fate recorder it carries).
struct OSContext {
    let deviceId: String
    let platform: Platform
    let online: Bool
    /// Moved on between the pushes of one visit (`DeviceFarm.withApp`).
    var now: Millis
    /// Background pushes a suspended app may receive per rolling hour (0: unlimited).
    let backgroundBudgetPerHour: Int
    /// A Focus is on; the ring/silent switch is on silent.
    var focus = false
    var muted = false
    let registrar: any TokenRegistrar
    /// The files the emulator serves (the farm's).
    let files: SharedFiles
    /// Where what happens to pushes is recorded, as it happens (the farm's).
    let fates: FateRecorder
    /// The status the managed push SDK's ingest answers now (`PUT /_emulator/sdk/ingest`).
    var kitsIngestStatus = 200

    /// Loads an attachment URL for a service extension: a file the emulator serves, or a `file://` path.
    func fetchAttachment(_ url: String) -> Result<[UInt8], AttachmentValidator.Refused> {
        AttachmentFetch.load(url, files: files.snapshot())
    }
}
