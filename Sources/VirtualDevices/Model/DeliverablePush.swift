import APNsEmulator
import APNsProtocol

/// What the device model reads of a push reaching an app: a push APNs held and hands over later
/// (`QueuedPush`), or one delivered the moment it was accepted (`AcceptedPush`, read where the validator left
/// it). Every push of a load test is the second kind, and building a `QueuedPush` for it copied six fields
/// through value witnesses only to destroy them again (2% of the CPU of a push to a device).
protocol DeliverablePush {
    var apnsId: String { get }
    /// Lowercase hex device token.
    var token: String { get }
    /// The app the push is for (the topic without the push type's suffix).
    var bundleId: String { get }
    var pushType: PushType { get }
    /// The JSON payload as sent.
    var payload: [UInt8] { get }
    var collapseId: String? { get }
    /// The push as APNs holds it, for the device to keep (a background push held back by the budget);
    /// `acceptedAt` is when a push delivered at once was accepted (a held push keeps its own).
    func queued(acceptedAt: Millis) -> QueuedPush
}

extension QueuedPush: DeliverablePush {
    func queued(acceptedAt: Millis) -> QueuedPush { self }
}

extension AcceptedPush: DeliverablePush {
    func queued(acceptedAt: Millis) -> QueuedPush { QueuedPush(self, acceptedAt: acceptedAt) }
}
