import OpenSSLSupport

/// What validation needs to know about a signing key.
///
/// A class (immutable, so Sendable) because every push on a connection carries a reference to its key:
/// copying a struct of strings, a set and a key object cost seven retains per request in the profile.
public final class VerificationKey: Sendable {
    public let keyId: String
    public let teamId: String
    public let kind: ProviderKeyKind
    /// The only environment the key may be used in (team-scoped and topic keys); nil: both.
    public let environment: APNsEnvironment?
    /// Topic keys: the bundle ids they may sign for.
    public let topics: Set<String>
    /// Topic keys: the key they are related to (may share a connection with it).
    public let relatedKeyId: String?
    public let publicKey: PublicKey

    public init(keyId: String, teamId: String, kind: ProviderKeyKind, environment: APNsEnvironment?,
                topics: Set<String>, relatedKeyId: String?, publicKey: PublicKey) {
        self.keyId = keyId
        self.teamId = teamId
        self.kind = kind
        self.environment = environment
        self.topics = topics
        self.relatedKeyId = relatedKeyId
        self.publicKey = publicKey
    }

    /// Whether tokens signed by `self` and `other` may share one connection.
    func isRelated(to other: VerificationKey) -> Bool {
        keyId == other.keyId || relatedKeyId == other.keyId || other.relatedKeyId == keyId
            || (relatedKeyId != nil && relatedKeyId == other.relatedKeyId)
    }
}

/// Finds keys by id; the emulator's key registry implements it.
/// Class-bound: validation copies the lookups into a context per request, and a class existential copies
/// with one retain where an opaque one goes through its value witnesses.
public protocol VerificationKeyLookup: AnyObject, Sendable {
    func verificationKey(for keyId: String) -> VerificationKey?
    /// The teams that declared `bundleId` theirs (a key's `topics`), or nil when none did: then any team's key
    /// may push to it, since the emulator cannot know its owner.
    func teamsOwning(_ bundleId: String) -> Set<String>?
    /// Changes whenever a key is added, replaced or removed: a connection re-checks its cached token then.
    var generation: UInt64 { get }
}
