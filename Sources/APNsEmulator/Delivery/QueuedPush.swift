import APNsProtocol

/// An accepted push on its way to a device: what the delivery queue and the device need of the request.
public struct QueuedPush: Sendable, Equatable {
    /// The `apns-id` answered to the sender: links the device's record of the push to the journal.
    public var apnsId: String
    /// Lowercase hex device token.
    public var token: String
    public var bundleId: String
    public var topic: String
    public var pushType: PushType
    public var priority: Int
    /// `apns-expiration` in UNIX seconds; nil when absent, 0 = deliver now or never.
    public var expiration: Int64?
    public var collapseId: String?
    /// The JSON payload as sent.
    public var payload: [UInt8]
    public var environment: APNsEnvironment
    /// When APNs accepted it (ms since the epoch, emulator clock).
    public var acceptedAt: Millis

    public init(apnsId: String, token: String, bundleId: String, topic: String, pushType: PushType,
                priority: Int, expiration: Int64?, collapseId: String?, payload: [UInt8],
                environment: APNsEnvironment, acceptedAt: Millis) {
        self.apnsId = apnsId
        self.token = token
        self.bundleId = bundleId
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.payload = payload
        self.environment = environment
        self.acceptedAt = acceptedAt
    }

    /// The queue's view of a push the validator accepted.
    /// Borrows the push: an owned parameter made callers copy the whole push (and this destroy it) to read
    /// the six fields kept.
    public init(_ push: borrowing AcceptedPush, acceptedAt: Millis) {
        self.init(apnsId: push.apnsId, token: push.token, bundleId: push.bundleId, topic: push.topic,
                  pushType: push.pushType, priority: push.priority, expiration: push.expiration,
                  collapseId: push.collapseId, payload: push.payload, environment: push.environment,
                  acceptedAt: acceptedAt)
    }
}
