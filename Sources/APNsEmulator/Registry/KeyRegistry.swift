import APNsProtocol
import OpenSSLSupport
import StateStore
import Synchronization

/// A registered key with its parsed public key, ready for signature checks.
public struct ProviderKey: Sendable {
    public let record: ProviderKeyRecord
    /// Built once at registration, so the hot path's lookup allocates nothing.
    public let verification: VerificationKey

    init(record: ProviderKeyRecord) throws {
        self.record = record
        self.verification = VerificationKey(
            keyId: record.keyId, teamId: record.teamId, kind: record.kind, environment: record.environment,
            topics: Set(record.topics), relatedKeyId: record.relatedKeyId, publicKey: try PublicKey(pem: record.publicKeyPem))
    }
}

/// The provider-token signing keys the emulator trusts, by key id.
public final class KeyRegistry: VerificationKeyLookup {
    private let keys = Mutex<[String: ProviderKey]>([:])
    private let changes = Atomic<UInt64>(0)

    public var generation: UInt64 { changes.load(ordering: .acquiring) }
    private let persistence: any StatePersistence

    public init(persistence: any StatePersistence = NoPersistence()) {
        self.persistence = persistence
    }

    /// Adds or replaces a key after checking its PEM parses as a P-256 public key.
    public func register(_ record: ProviderKeyRecord) throws {
        let key = try ProviderKey(record: record)
        try persistence.upsertKey(record)
        keys.withLock {
            $0[record.keyId] = key
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Loads records from storage without writing them back.
    func restore(_ records: [ProviderKeyRecord]) throws {
        var parsed: [String: ProviderKey] = [:]
        for r in records { parsed[r.keyId] = try ProviderKey(record: r) }
        keys.withLock {
            $0 = parsed
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    @discardableResult
    public func remove(keyId: String) throws -> Bool {
        guard lookup(keyId) != nil else { return false }
        try persistence.deleteKey(keyId: keyId)
        keys.withLock {
            _ = $0.removeValue(forKey: keyId)
            changes.wrappingAdd(1, ordering: .releasing)
        }
        return true
    }

    public func lookup(_ keyId: String) -> ProviderKey? {
        keys.withLock { $0[keyId] }
    }

    public func verificationKey(for keyId: String) -> VerificationKey? {
        keys.withLock { $0[keyId]?.verification }
    }

    /// All keys, ordered by key id for stable listings.
    public func all() -> [ProviderKeyRecord] {
        keys.withLock { $0.values.map(\.record) }.sorted { $0.keyId < $1.keyId }
    }

    func removeAll() {
        keys.withLock {
            $0.removeAll()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }
}
