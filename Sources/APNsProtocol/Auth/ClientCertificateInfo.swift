/// What validation needs from a connection's TLS client certificate (APNs certificate auth).
public struct ClientCertificateInfo: Sendable, Equatable {
    /// Chained to a trusted root during the handshake.
    public var trusted: Bool
    /// Within its validity period at connection time.
    public var currentlyValid: Bool
    /// The subject UID: the app's bundle id.
    public var bundleId: String?
    /// Environments named by Apple's extensions (.6.3.1 sandbox, .6.3.2 production).
    public var environments: Set<APNsEnvironment>
    /// Topics from the topics extension (.6.3.6); empty for a single-topic certificate.
    public var topics: [String]

    public init(trusted: Bool, currentlyValid: Bool, bundleId: String?, environments: Set<APNsEnvironment>,
                topics: [String]) {
        self.trusted = trusted
        self.currentlyValid = currentlyValid
        self.bundleId = bundleId
        self.environments = environments
        self.topics = topics
    }

    /// Topics this certificate may push to: its bundle id with `.voip` and `.complication`, plus listed ones.
    public var allowedTopics: Set<String> {
        var set = Set(topics)
        if let b = bundleId { set.formUnion([b, b + ".voip", b + ".complication"]) }
        return set
    }

    /// Whether a request without `apns-topic` is ambiguous (multi-topic certificates require the header).
    public var isMultiTopic: Bool { Set(topics).subtracting([bundleId ?? ""]).count > 0 }
}

/// How the connection authenticates: by provider tokens or by its client certificate.
public enum ConnectionAuth: Sendable, Equatable {
    case token
    case certificate(ClientCertificateInfo)
}
