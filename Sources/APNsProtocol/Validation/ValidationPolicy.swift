/// Every place where Apple's documentation is unclear, as a named switch (see the README's conformance
/// table). Defaults follow Apple's documented behaviour where it is documented, the strictest reading elsewhere.
public struct ValidationPolicy: Sendable, Equatable, Codable {
    /// Absent `apns-push-type` is treated as `alert` (with a journal warning). Off: 400 InvalidPushType,
    /// as watchOS requires.
    public var defaultPushTypeToAlert = true
    /// A background push at priority 10 is rejected 400 BadPriority (Apple says it "must" use 5).
    public var rejectBackgroundPriority10 = true
    /// Apple documents no reason for a body that is not a JSON object; we answer this one.
    public var nonObjectPayloadReason: APNsReason = .payloadEmpty
    /// Send the undocumented `BadEnvironmentKeyInToken` spelling some servers were seen to send, instead of
    /// the documented `BadEnvironmentKeyIdInToken`.
    public var useUndocumentedBadEnvironmentKeySpelling = false
    /// A JWT whose `iat` is this far in the future is InvalidProviderToken (seconds).
    public var futureIssuedAtToleranceSeconds: Int64 = 3600
    /// A JWT whose `iat` is older than this is ExpiredProviderToken (seconds; Apple: one hour).
    public var providerTokenMaxAgeSeconds: Int64 = 3600
    /// A new token on one connection sooner than this after the previous new one is
    /// TooManyProviderTokenUpdates (seconds; Apple: 20 minutes).
    public var providerTokenRefreshIntervalSeconds: Int64 = 20 * 60
    /// What a topic-specific key signing for a topic outside its list gets (Decision: InvalidProviderToken).
    public var topicKeyOutsideTopicsReason: APNsReason = .invalidProviderToken
    /// What a provider token gets for a topic another team declared its own (Decision: TopicDisallowed, "the
    /// topic is not allowed"; Apple does not say which check answers a foreign team).
    public var foreignTeamTopicReason: APNsReason = .topicDisallowed
    /// Maximum `apns-collapse-id` length in bytes.
    public var maxCollapseIdBytes = 64
    /// Payload limit for broadcast pushes.
    public var broadcastPayloadLimit = 5120
    /// Accept JWT signatures DER-encoded as Java signs them (Pushy), which real APNs accepts.
    public var acceptDEREncodedSignatures = true
    /// Accept an `apns-id` with uppercase hex digits (Decision: Apple's examples are lowercase but clients
    /// send either; the id is echoed exactly as sent). Off: uppercase is 400 BadMessageId.
    public var acceptUppercaseApnsId = true

    public init() {}

    /// The wire string for `reason` under this policy (the one reason with two spellings in the wild).
    public func wireString(for reason: APNsReason) -> String {
        if reason == .badEnvironmentKeyIdInToken && useUndocumentedBadEnvironmentKeySpelling {
            return "BadEnvironmentKeyInToken"
        }
        return reason.rawValue
    }
}
