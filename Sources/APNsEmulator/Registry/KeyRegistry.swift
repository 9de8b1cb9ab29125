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
    /// The keys by id, and which teams declared each bundle id (every key's `topics`), rebuilt when keys change.
    private struct Keys {
        var byId: [String: ProviderKey] = [:]
        var owners: [String: Set<String>] = [:]

        mutating func changed() {
            owners = [:]
            for key in byId.values {
                for topic in key.record.topics { owners[topic, default: []].insert(key.record.teamId) }
            }
        }
    }

    private let keys = Mutex(Keys())
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
            $0.byId[record.keyId] = key
            $0.changed()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Loads records from storage without writing them back.
    func restore(_ records: [ProviderKeyRecord]) throws {
        var parsed: [String: ProviderKey] = [:]
        for r in records { parsed[r.keyId] = try ProviderKey(record: r) }
        keys.withLock {
            $0.byId = parsed
            $0.changed()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Takes a key another replica registered (already in the shared store): memory only.
    func adopt(_ record: ProviderKeyRecord) throws {
        let key = try ProviderKey(record: record)
        keys.withLock {
            $0.byId[record.keyId] = key
            $0.changed()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Drops a key another replica removed: memory only.
    func forget(keyId: String) {
        keys.withLock {
            guard $0.byId.removeValue(forKey: keyId) != nil else { return }
            $0.changed()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }

    @discardableResult
    public func remove(keyId: String) throws -> Bool {
        guard lookup(keyId) != nil else { return false }
        try persistence.deleteKey(keyId: keyId)
        keys.withLock {
            _ = $0.byId.removeValue(forKey: keyId)
            $0.changed()
            changes.wrappingAdd(1, ordering: .releasing)
        }
        return true
    }

    public func lookup(_ keyId: String) -> ProviderKey? {
        keys.withLock { $0.byId[keyId] }
    }

    public func verificationKey(for keyId: String) -> VerificationKey? {
        keys.withLock { $0.byId[keyId]?.verification }
    }

    public func teamsOwning(_ bundleId: String) -> Set<String>? {
        keys.withLock { $0.owners[bundleId] }
    }

    /// All keys, ordered by key id for stable listings.
    public func all() -> [ProviderKeyRecord] {
        keys.withLock { $0.byId.values.map(\.record) }.sorted { $0.keyId < $1.keyId }
    }

    func removeAll() {
        keys.withLock {
            $0 = Keys()
            changes.wrappingAdd(1, ordering: .releasing)
        }
    }
}
