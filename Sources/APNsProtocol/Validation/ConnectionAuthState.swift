import WireBytes

/// Per-connection state carried between requests: the provider-token rules, whether a valid token was
/// seen (for "one stream until authenticated"), and the connection's apns-id generator.
public struct ConnectionAuthState: Sendable {
    public var tokenRules = ProviderTokenRules()
    /// The bytes of `tokenRules.currentToken`, compared with memcmp on every request (the fast path).
    var currentTokenBytes: [UInt8] = []
    /// The last device-token lookup, valid while the registry's generation is unchanged.
    var lastToken: (token: String, generation: UInt64, info: DeviceTokenInfo?)?
    /// Generates apns-ids for requests that carry none.
    public var ids = APNsIDGenerator()
    /// The last payload scanned on this connection (a copy of its own) and what the scan found. Senders repeat one
    /// payload template: comparing its bytes costs a tenth of scanning them again, and an accepted push keeps this
    /// copy rather than the request's buffer, which the transport then reuses for the stream's next request
    /// instead of allocating a new one while the push is on its way to its device.
    private var lastPayload: [UInt8] = []
    private var lastPayloadSummary = PayloadScanner.Summary()
    private static let payloadMemoLimit = 8 * 1024
    /// The last `apns-topic` value read on this connection: senders repeat one topic, and handing back this
    /// String when the bytes match saves building (allocating and UTF-8-checking) a new one per push.
    private var lastTopic: String?
    /// Verdict of `tokenRules.currentToken`, so a repeated token costs a string compare only.
    var currentVerdict: CurrentVerdict?
    /// Whether the last bundle id pushed to was another team's (its owners, joined, or nil), for the team signing
    /// then and while the keys are unchanged: senders push to one app, and this saves the registry's lock per push.
    var lastOwnership: (bundleId: String, teamId: String, keysGeneration: UInt64, foreignOwners: String?)?
    /// Set once any request carried a valid token (or the connection uses a certificate).
    public var authenticated = false
    /// New provider tokens accepted on this connection (the first one included): token-refresh events.
    public internal(set) var tokenUpdates = 0

    public init() {}

    /// The topic header's value as a String: `lastTopic` when its bytes are the same, else a new one
    /// (which becomes `lastTopic`).
    mutating func topic(_ bytes: UnsafeRawBufferPointer) -> String {
        if var last = lastTopic {
            let same = last.withUTF8 { bytesEqual(UnsafeRawBufferPointer($0), bytes) }
            if same { return last }
        }
        let topic = String(decoding: bytes, as: UTF8.self)
        lastTopic = topic
        return topic
    }

    /// `PayloadScanner.scan(body)`, answered from the memo when `body` is the last payload scanned, and the bytes
    /// an accepted push keeps: the memo's copy whenever there is one.
    mutating func scanPayload(_ body: [UInt8]) -> (summary: PayloadScanner.Summary, bytes: [UInt8]) {
        if !body.isEmpty && bytesEqual(body, lastPayload) { return (lastPayloadSummary, lastPayload) }
        let summary = PayloadScanner.scan(body)
        guard body.count <= Self.payloadMemoLimit else { return (summary, body) }
        // An exact-size copy: refilling the old array would copy it anyway while pushes share it.
        lastPayload = body.withUnsafeBufferPointer { Array($0) }
        lastPayloadSummary = summary
        return (summary, lastPayload)
    }
}

/// The verified token a connection is using and its key, held by reference so the per-request fast path
/// costs one retain rather than a copy of the token's fields.
final class CurrentVerdict: Sendable {
    let token: ProviderToken
    let key: VerificationKey
    /// The key registry's generation when the verdict was reached; a change sends the token back through
    /// the verifier (whose own cache still makes that cheap when the key did not change).
    let keysGeneration: UInt64

    init(token: ProviderToken, key: VerificationKey, keysGeneration: UInt64) {
        self.token = token
        self.key = key
        self.keysGeneration = keysGeneration
    }
}
