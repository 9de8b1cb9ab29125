import APNsProtocol
import Foundation
import StateStore
import Synchronization
import WireBytes

/// Device tokens per (bundle id, environment), and how fast each is being pushed to.
public final class TokenRegistry: DeviceTokenLookup {
    private struct State {
        /// By `TokenKey`: validation looks a token up on every push, and a String key hashed all 64 hex digits
        /// through SipHash each time.
        var tokens: [TokenKey: DeviceTokenRecord] = [:]
        /// Recent push times per token (ms), for TooManyRequests.
        var recentPushes: [TokenKey: [Millis]] = [:]
    }

    private let state = Mutex(State())
    private let changes = Atomic<UInt64>(0)
    /// Serialises read-change-write updates among themselves, so `state` is never held while the store is
    /// written (with a shared store that is a network round trip, and every push reads `state`).
    private let updates = Mutex(())
    /// Set once any token is held by another replica's virtual device: until then a push needs no routing lookup.
    private let otherReplicas = Atomic<Bool>(false)

    /// Whether some token belongs to another replica's device (read on every push by the router).
    public var holdsOtherReplicasTokens: Bool { otherReplicas.load(ordering: .relaxed) }

    private func noteHolder(_ record: DeviceTokenRecord) {
        if let holder = record.replica, holder != replicaId { otherReplicas.store(true, ordering: .relaxed) }
    }

    public var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// Marks a change; called inside the lock, so a reader that sees the new generation sees the new record.
    private func changed() { changes.wrappingAdd(1, ordering: .releasing) }
    private let persistence: any StatePersistence

    /// With a shared store, this replica's id: stamped on tokens its virtual devices hold, so the other
    /// replicas route pushes to them here.
    let replicaId: String?

    public init(persistence: any StatePersistence = NoPersistence(), replicaId: String? = nil) {
        self.persistence = persistence
        self.replicaId = replicaId
    }

    /// Issues a fresh random token for an app in an environment (what a device's registration returns).
    /// - Parameters:
    ///   - firstByte: a constraint on the token's first byte (the virtual devices keep each of their tokens in the
    ///     shard that byte names); the token is random otherwise.
    ///   - onVirtualDevice: a virtual device of this emulator holds it (recorded as this replica's with a shared store).
    public func issue(bundleId: String, environment: APNsEnvironment, kind: DeviceTokenKind = .app,
                      deviceId: String? = nil, now: Millis, onVirtualDevice: Bool = false,
                      firstByte accept: (UInt8) -> Bool = { _ in true }) throws -> DeviceTokenRecord {
        var bytes = [UInt8](repeating: 0, count: kind.byteLength)
        var generator = SystemRandomNumberGenerator()
        repeat {
            // Eight bytes a draw: each draw of the system generator is a getrandom(2) call.
            for start in stride(from: 0, to: bytes.count, by: 8) {
                var word: UInt64 = generator.next()
                for i in start..<min(start + 8, bytes.count) {
                    bytes[i] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                }
            }
        } while !accept(bytes[0])
        let token = Hex.lowercase(bytes)
        let record = DeviceTokenRecord(token: token, bundleId: bundleId, environment: environment, kind: kind,
                                       createdAt: now, deviceId: deviceId, replica: onVirtualDevice ? replicaId : nil)
        try persistence.upsertToken(record)
        state.withLock { $0.tokens[TokenKey(token)] = record; changed() }
        return record
    }

    /// Adds or replaces a token given in full (state import, a test registering a known token).
    public func register(_ record: DeviceTokenRecord) throws {
        var r = record
        r.token = r.token.lowercased()
        try persistence.upsertToken(r)
        noteHolder(r)
        state.withLock { $0.tokens[TokenKey(r.token)] = r; changed() }
    }

    func restore(_ records: [DeviceTokenRecord]) {
        otherReplicas.store(false, ordering: .relaxed)
        for r in records { noteHolder(r) }
        state.withLock { s in
            s.tokens = Dictionary(records.map { (TokenKey($0.token), $0) }, uniquingKeysWith: { _, b in b })
            s.recentPushes = [:]
            changed()
        }
    }

    /// Takes a token another replica registered or changed (already in the shared store): memory only.
    func adopt(_ record: DeviceTokenRecord) {
        noteHolder(record)
        state.withLock { $0.tokens[TokenKey(record.token)] = record; changed() }
    }

    /// Drops a token another replica removed: memory only.
    func forget(_ token: String) {
        state.withLock { s in
            s.tokens.removeValue(forKey: TokenKey(token))
            s.recentPushes.removeValue(forKey: TokenKey(token))
            changed()
        }
    }

    /// Marks a token unregistered at `at` (the app was uninstalled); returns the updated record.
    public func unregister(_ token: String, at: Millis) throws -> DeviceTokenRecord? {
        try update(token) { $0.unregisteredAt = at }
    }

    /// Marks a token expired at `at`.
    public func expire(_ token: String, at: Millis) throws -> DeviceTokenRecord? {
        try update(token) { $0.expiredAt = at }
    }

    /// Read, change, persist and store, one update at a time (`updates`), so two concurrent updates (unregister
    /// and expire) cannot lose one another; `state` is held only to read and to store, never across the write.
    private func update(_ token: String, _ change: (inout DeviceTokenRecord) -> Void) throws -> DeviceTokenRecord? {
        let key = TokenKey(token.lowercased())
        return try updates.withLock { _ throws -> DeviceTokenRecord? in
            guard var record = state.withLock({ $0.tokens[key] }) else { return nil }
            change(&record)
            try persistence.upsertToken(record)
            let stored = record
            return state.withLock { s -> DeviceTokenRecord? in
                guard s.tokens[key] != nil else { return nil }
                s.tokens[key] = stored
                changed()
                return stored
            }
        }
    }

    @discardableResult
    public func remove(_ token: String) throws -> Bool {
        let key = token.lowercased()
        // Among the updates, so an unregister in progress cannot write the record back after it is gone.
        return try updates.withLock { _ throws -> Bool in
            guard lookup(key) != nil else { return false }
            try persistence.deleteToken(key)
            state.withLock { s in
                s.tokens.removeValue(forKey: TokenKey(key))
                s.recentPushes.removeValue(forKey: TokenKey(key))
                changed()
            }
            return true
        }
    }

    /// The record for a lowercase-hex token.
    public func lookup(_ token: String) -> DeviceTokenRecord? {
        state.withLock { $0.tokens[TokenKey(token)] }
    }

    public func deviceToken(_ token: String) -> DeviceTokenInfo? {
        state.withLock { s in
            s.tokens[TokenKey(token)].map {
                DeviceTokenInfo(bundleId: $0.bundleId, environment: $0.environment,
                                unregisteredAt: $0.unregisteredAt, expiredAt: $0.expiredAt)
            }
        }
    }

    /// Tokens, optionally filtered, ordered by creation time.
    public func all(bundleId: String? = nil, environment: APNsEnvironment? = nil) -> [DeviceTokenRecord] {
        state.withLock { s in
            s.tokens.values.filter {
                (bundleId == nil || $0.bundleId == bundleId) && (environment == nil || $0.environment == environment)
            }
        }.sorted { ($0.createdAt, $0.token) < ($1.createdAt, $1.token) }
    }

    /// Records a push to `token` and says whether it exceeds `limit` pushes per `windowMillis`
    /// (APNs' 429 TooManyRequests for a device that is pushed to too often).
    public func recordPush(to token: String, now: Millis, limit: Int, windowMillis: Millis) -> Bool {
        guard limit > 0 else { return false }
        let key = TokenKey(token)
        return state.withLock { s in
            // In place (`default:` subscript): copying the array out and back would allocate on every push.
            let cutoff = now - windowMillis
            if let first = s.recentPushes[key]?.first, first <= cutoff {
                s.recentPushes[key, default: []].removeAll { $0 <= cutoff }
            }
            let exceeded = (s.recentPushes[key]?.count ?? 0) >= limit
            if !exceeded { s.recentPushes[key, default: []].append(now) }
            return exceeded
        }
    }

    func removeAll() {
        otherReplicas.store(false, ordering: .relaxed)
        state.withLock { $0 = State(); changed() }
    }
}
