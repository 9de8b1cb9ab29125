/// What validation needs from a connection's TLS client certificate (APNs certificate auth).
public struct ClientCertificateInfo: Sendable, Equatable {
    /// Chained to a trusted root during the handshake.
    public let trusted: Bool
    /// Within its validity period at connection time.
    public let currentlyValid: Bool
    /// The subject UID: the app's bundle id.
    public let bundleId: String?
    /// Environments named by Apple's extensions (.6.3.1 sandbox, .6.3.2 production).
    public let environments: Set<APNsEnvironment>
    /// Topics from the topics extension (.6.3.6); empty for a single-topic certificate.
    public let topics: [String]
    /// Topics this certificate may push to: its bundle id with `.voip` and `.complication`, plus listed ones.
    /// Computed once per connection rather than per push.
    public let allowedTopics: Set<String>
    /// Whether a request without `apns-topic` is ambiguous (multi-topic certificates require the header).
    public let isMultiTopic: Bool

    public init(trusted: Bool, currentlyValid: Bool, bundleId: String?, environments: Set<APNsEnvironment>,
                topics: [String]) {
        self.trusted = trusted
        self.currentlyValid = currentlyValid
        self.bundleId = bundleId
        self.environments = environments
        self.topics = topics
        var allowed = Set(topics)
        if let b = bundleId { allowed.formUnion([b, b + ".voip", b + ".complication"]) }
        self.allowedTopics = allowed
        self.isMultiTopic = !Set(topics).subtracting([bundleId ?? ""]).isEmpty
    }

}

/// How the connection authenticates: by provider tokens or by its client certificate.
public enum ConnectionAuth: Sendable, Equatable {
    case token
    case certificate(ClientCertificateInfo)
}
