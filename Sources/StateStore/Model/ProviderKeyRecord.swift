import APNsProtocol

/// A registered signing key, as stored and as the control API shows it (without the private key).
public struct ProviderKeyRecord: Sendable, Codable, Equatable, Hashable {
    /// 10-character key id (the JWT header's `kid`).
    public var keyId: String
    /// 10-character team id (the JWT claim `iss`).
    public var teamId: String
    public var kind: ProviderKeyKind
    /// Required for team-scoped and topic keys; nil for legacy team keys.
    public var environment: APNsEnvironment?
    /// Topic keys only: the bundle ids (topics) the key may sign for.
    public var topics: [String]
    /// Topic keys: the key this one is related to (tokens signed by either may share a connection).
    public var relatedKeyId: String?
    /// SubjectPublicKeyInfo PEM of the P-256 public key.
    public var publicKeyPem: String
    public var createdAt: Millis

    public init(keyId: String, teamId: String, kind: ProviderKeyKind, environment: APNsEnvironment? = nil,
                topics: [String] = [], relatedKeyId: String? = nil, publicKeyPem: String, createdAt: Millis) {
        self.keyId = keyId
        self.teamId = teamId
        self.kind = kind
        self.environment = environment
        self.topics = topics
        self.relatedKeyId = relatedKeyId
        self.publicKeyPem = publicKeyPem
        self.createdAt = createdAt
    }
}
