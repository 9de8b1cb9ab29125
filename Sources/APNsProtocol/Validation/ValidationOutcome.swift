/// The headers of a request as validation read them (for the journal, whatever the outcome).
public struct RequestSummary: Sendable, Equatable {
    /// Lowercase hex, when the path carried a well-formed token.
    public var token: String?
    public var topic: String?
    public var pushType: PushType?
    public var priority: Int?
    public var expiration: Int64?
    public var collapseId: String?
    /// The apns-id exactly as sent, if any.
    public var apnsId: String?
    /// Notes for the user, e.g. an absent apns-push-type treated as alert.
    public var warnings: [String] = []
    /// Team and key of the provider token, when one was parsed.
    public var teamId: String?
    public var keyId: String?
    /// Why auth failed, in detail (journal only; the wire carries Apple's reason only).
    public var authDetail: String?

    public init() {}
}

/// What every validated request (device push or broadcast) carries into its answer.
public protocol ValidatedRequest: Sendable {
    var summary: RequestSummary { get }
    /// The id echoed in the answer (`apns-id`, or `apns-request-id` for broadcasts).
    var responseId: String { get }
}

/// A push that passed every check. Immutable and shared: the answer, the journal and the devices' delivery all
/// read the same one.
///
/// The token, topic, collapse id and expiration live once, in `summary` (which the validator filled and checked).
public final class AcceptedPush: ValidatedRequest {
    public let summary: RequestSummary
    /// The topic without the push type's suffix: the app's bundle id.
    public let bundleId: String
    public let pushType: PushType
    /// The effective priority (an omitted header on a background push reads as 5).
    public let priority: Int
    /// The apns-id to send back: as received, or generated (lowercase).
    public let apnsId: String
    public let payload: [UInt8]
    public let payloadSummary: PayloadScanner.Summary
    public let environment: APNsEnvironment

    /// `summary` must carry a token and a topic (the validator sets both before it accepts; a replica rebuilding
    /// a push another accepted has both from it).
    package init(summary: RequestSummary, bundleId: String, pushType: PushType, priority: Int, apnsId: String,
         payload: [UInt8], payloadSummary: PayloadScanner.Summary, environment: APNsEnvironment) {
        precondition(summary.token != nil && summary.topic != nil, "an accepted push has a token and a topic")
        self.summary = summary
        self.bundleId = bundleId
        self.pushType = pushType
        self.priority = priority
        self.apnsId = apnsId
        self.payload = payload
        self.payloadSummary = payloadSummary
        self.environment = environment
    }

    /// A push built from its parts, as if the validator had accepted it: the payload is scanned here. For a push
    /// another replica accepted, and for tests.
    package convenience init(token: String, topic: String, bundleId: String, pushType: PushType, priority: Int,
                             expiration: Int64?, collapseId: String?, apnsId: String, payload: [UInt8],
                             environment: APNsEnvironment) {
        var summary = RequestSummary()
        summary.token = token
        summary.topic = topic
        summary.pushType = pushType
        summary.priority = priority
        summary.expiration = expiration
        summary.collapseId = collapseId
        summary.apnsId = apnsId
        self.init(summary: summary, bundleId: bundleId, pushType: pushType, priority: priority, apnsId: apnsId,
                  payload: payload, payloadSummary: PayloadScanner.scan(payload), environment: environment)
    }

    /// Lowercase hex device token.
    public var token: String { summary.token! }
    public var topic: String { summary.topic! }
    /// UNIX seconds; nil when absent (store per policy), 0 = deliver once, never store.
    public var expiration: Int64? { summary.expiration }
    public var collapseId: String? { summary.collapseId }

    public var responseId: String { apnsId }
}

/// A request APNs refuses.
public struct Rejection: Error, Sendable, Equatable {
    public var reason: APNsReason
    /// 410 only: when the token stopped being valid (ms since epoch).
    public var timestamp: Int64?
    /// The apns-id to send back.
    public var apnsId: String
    public var summary: RequestSummary

    public init(reason: APNsReason, timestamp: Int64? = nil, apnsId: String, summary: RequestSummary) {
        self.reason = reason
        self.timestamp = timestamp
        self.apnsId = apnsId
        self.summary = summary
    }
}
