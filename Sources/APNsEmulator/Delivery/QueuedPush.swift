import APNsProtocol

/// An accepted push on its way to a device: what the delivery queue and the device need of the request.
///
/// Holds the validator's push (one shared reference) rather than copies of its strings and payload, which every
/// delivery would retain and release.
public struct QueuedPush: Sendable, Equatable {
    /// The push the validator accepted.
    public let accepted: AcceptedPush
    /// When APNs accepted it (ms since the epoch, emulator clock).
    public let acceptedAt: Millis

    /// The `apns-id` answered to the sender: links the device's record of the push to the journal.
    public var apnsId: String { accepted.apnsId }
    /// Lowercase hex device token.
    public var token: String { accepted.token }
    public var bundleId: String { accepted.bundleId }
    public var topic: String { accepted.topic }
    public var pushType: PushType { accepted.pushType }
    public var priority: Int { accepted.priority }
    /// `apns-expiration` in UNIX seconds; nil when absent, 0 = deliver now or never.
    public var expiration: Int64? { accepted.expiration }
    public var collapseId: String? { accepted.collapseId }
    /// The JSON payload as sent.
    public var payload: [UInt8] { accepted.payload }
    public var environment: APNsEnvironment { accepted.environment }

    public init(_ push: AcceptedPush, acceptedAt: Millis) {
        accepted = push
        self.acceptedAt = acceptedAt
    }

    /// A push built from its parts, as if the validator had accepted it (its payload is scanned here).
    public init(apnsId: String, token: String, bundleId: String, topic: String, pushType: PushType,
                priority: Int, expiration: Int64?, collapseId: String?, payload: [UInt8],
                environment: APNsEnvironment, acceptedAt: Millis) {
        self.init(AcceptedPush(token: token, topic: topic, bundleId: bundleId, pushType: pushType, priority: priority,
                               expiration: expiration, collapseId: collapseId, apnsId: apnsId, payload: payload,
                               environment: environment),
                  acceptedAt: acceptedAt)
    }

    /// Equal when every field the queue and the device read is (two pushes built apart can be equal).
    public static func == (a: QueuedPush, b: QueuedPush) -> Bool {
        a.acceptedAt == b.acceptedAt && (a.accepted === b.accepted || (
            a.apnsId == b.apnsId && a.token == b.token && a.bundleId == b.bundleId && a.topic == b.topic
            && a.pushType == b.pushType && a.priority == b.priority && a.expiration == b.expiration
            && a.collapseId == b.collapseId && a.payload == b.payload && a.environment == b.environment))
    }
}
