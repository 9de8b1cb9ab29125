import APNsProtocol
/// One APNs request as the emulator saw and answered it.
public struct JournalEntry: Sendable, Codable, Equatable {
    /// Increasing sequence number (survives a `DELETE journal`, so pollers can ask for "after N").
    public var id: Int64
    public var receivedAt: Millis
    public var connectionId: UInt64
    public var environment: APNsEnvironment
    public var method: String
    public var path: String
    /// The device token from the path, if the path had one.
    public var token: String?
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    public var expiration: Int64?
    public var collapseId: String?
    /// Every request header in order as [name, value] pairs (authorization is redacted to its JWT header).
    public var headers: [[String]]
    /// The payload as text (nil when empty or not UTF-8).
    public var payload: String?
    /// "token", "certificate" or "none".
    public var authMode: String
    /// "accepted" or the auth reason that rejected the request.
    public var authOutcome: String
    public var teamId: String?
    public var keyId: String?
    public var status: Int
    public var reason: String?
    /// 410 only: when the token stopped being valid (ms).
    public var timestamp: Millis?
    /// The apns-id in the response (echoed or generated).
    public var apnsId: String
    /// Sandbox responses only.
    public var apnsUniqueId: String?
    /// Microseconds from when the server read the request to its answer (not counting injected delays).
    public var durationMicros: Int64
    /// A fault that shaped the answer, by rule id.
    public var faultId: String?
    /// Notes for the user (e.g. "apns-push-type absent: treated as alert").
    public var warnings: [String]

    public init(id: Int64, receivedAt: Millis, connectionId: UInt64, environment: APNsEnvironment, method: String,
                path: String, token: String? = nil, topic: String? = nil, pushType: String? = nil, priority: Int? = nil,
                expiration: Int64? = nil, collapseId: String? = nil, headers: [[String]] = [], payload: String? = nil,
                authMode: String = "none", authOutcome: String = "accepted", teamId: String? = nil, keyId: String? = nil,
                status: Int, reason: String? = nil, timestamp: Millis? = nil, apnsId: String, apnsUniqueId: String? = nil,
                durationMicros: Int64 = 0, faultId: String? = nil, warnings: [String] = []) {
        self.id = id
        self.receivedAt = receivedAt
        self.connectionId = connectionId
        self.environment = environment
        self.method = method
        self.path = path
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseId = collapseId
        self.headers = headers
        self.payload = payload
        self.authMode = authMode
        self.authOutcome = authOutcome
        self.teamId = teamId
        self.keyId = keyId
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsId = apnsId
        self.apnsUniqueId = apnsUniqueId
        self.durationMicros = durationMicros
        self.faultId = faultId
        self.warnings = warnings
    }
}

/// Which journal entries a query wants.
public struct JournalFilter: Sendable, Equatable {
    public var token: String?
    public var topic: String?
    public var apnsId: String?
    public var status: Int?
    public var reason: String?
    /// Only entries with an id greater than this.
    public var afterId: Int64?
    /// At most this many, newest last.
    public var limit: Int?

    public init(token: String? = nil, topic: String? = nil, apnsId: String? = nil, status: Int? = nil,
                reason: String? = nil, afterId: Int64? = nil, limit: Int? = nil) {
        self.token = token
        self.topic = topic
        self.apnsId = apnsId
        self.status = status
        self.reason = reason
        self.afterId = afterId
        self.limit = limit
    }

    /// Whether it selects entries by what they hold (token, topic, apns-id, status, reason), not only by id
    /// (`afterId`) and count (`limit`). A new field that selects by content must be added here too: without it, the
    /// journal answers a filter from its newest entries alone.
    var selectsByContent: Bool { token != nil || topic != nil || apnsId != nil || status != nil || reason != nil }

    func matches(_ e: JournalEntry) -> Bool {
        if let token, e.token != token.lowercased() { return false }
        if let topic, e.topic != topic { return false }
        if let apnsId, e.apnsId.lowercased() != apnsId.lowercased() { return false }
        if let status, e.status != status { return false }
        if let reason, e.reason != reason { return false }
        if let afterId, e.id <= afterId { return false }
        return true
    }
}
