import APNsProtocol

/// An injected misbehaviour: which requests it hits and what happens to them.
public struct FaultRule: Sendable, Codable, Equatable, Hashable {
    public var id: String
    /// Hits requests for this device token only (nil: any token).
    public var token: String?
    /// Hits requests for this topic only (nil: any topic).
    public var topic: String?
    public var action: FaultAction
    /// How many more requests it hits (nil: until removed).
    public var remaining: Int?
    /// When it stops hitting (nil: never).
    public var expiresAt: Millis?
    public var createdAt: Millis

    public init(id: String, token: String? = nil, topic: String? = nil, action: FaultAction, remaining: Int? = nil,
                expiresAt: Millis? = nil, createdAt: Millis) {
        self.id = id
        self.token = token
        self.topic = topic
        self.action = action
        self.remaining = remaining
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }

    /// Whether the rule applies to a request for `token` on `topic` at `now`.
    public func matches(token: String?, topic: String?, now: Millis) -> Bool {
        if let expiresAt, now >= expiresAt { return false }
        if let remaining, remaining <= 0 { return false }
        if let t = self.token, t != token { return false }
        if let t = self.topic, t != topic { return false }
        return true
    }
}

/// What a fault does to a matching request.
public enum FaultAction: Sendable, Equatable, Hashable {
    /// Answer with this APNs reason (and its status) instead of processing the push.
    case reason(String)
    /// Process normally but answer after this many milliseconds.
    case delay(Millis)
    /// Reset the stream (RST_STREAM INTERNAL_ERROR) without answering.
    case resetStream
    /// Answer, then send GOAWAY with `{"reason": reason}` and close the connection.
    case goAway(reason: String)
    /// Answer 503 Shutdown (and GOAWAY) for every matching request until the rule expires.
    case shutdown
}

extension FaultAction: Codable {
    private enum CodingKeys: String, CodingKey { case type, reason, delayMs }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "reason": self = .reason(try c.decode(String.self, forKey: .reason))
        case "delay": self = .delay(try c.decode(Millis.self, forKey: .delayMs))
        case "reset-stream": self = .resetStream
        case "goaway": self = .goAway(reason: try c.decodeIfPresent(String.self, forKey: .reason) ?? "Shutdown")
        case "shutdown": self = .shutdown
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c,
                debugDescription: "unknown fault type '\(other)': expected reason, delay, reset-stream, goaway or shutdown")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .reason(let r):
            try c.encode("reason", forKey: .type)
            try c.encode(r, forKey: .reason)
        case .delay(let ms):
            try c.encode("delay", forKey: .type)
            try c.encode(ms, forKey: .delayMs)
        case .resetStream:
            try c.encode("reset-stream", forKey: .type)
        case .goAway(let r):
            try c.encode("goaway", forKey: .type)
            try c.encode(r, forKey: .reason)
        case .shutdown:
            try c.encode("shutdown", forKey: .type)
        }
    }
}
