import APNsProtocol
import Foundation
import OpenSSLSupport
import StateStore
import Synchronization

/// The emulator's shared state: registries, journal, faults, clock and the store behind them.
///
/// One instance per running emulator, shared by the APNs handler (hot path, reads), the control API
/// (writes) and, later, the devices. Each registry locks itself; the two lists of cluster listeners have locks
/// of their own.
public final class EmulatorServices: Sendable {
    public let configuration: EmulatorConfiguration
    public let clock: any EmulatorClock
    /// Whether `clock` is the real clock, so `now(readAtWallMillis:)` can skip it.
    private let clockIsSystem: Bool
    public let keys: KeyRegistry
    public let tokens: TokenRegistry
    public let journal: Journal
    public let faults: FaultPlan
    /// Broadcast channels (in memory, and with a shared store copied there: see `ClusterReplication.copyChannel`).
    public let channels: ChannelRegistry
    public let persistence: any StatePersistence
    /// Provider-token signature verdicts, cached (one verification per distinct token).
    public let verifier = ProviderTokenVerifier()
    /// Live counters for `/metrics` and `/_emulator/stats`.
    public let metrics = EmulatorMetrics()
    /// Per-connection statistics for `/_emulator/stats`.
    public let connectionStats = ConnectionStatsRegistry()
    /// Latency, stream limits, rate limits, connection recycling and brownouts, changeable live.
    public let shaping: ShapingStore
    /// The shaping the emulator started with (`reset` returns to it).
    private let initialShaping: ShapingSettings
    /// Where the listeners ended up, once `Emulator.start` bound them (`GET /_emulator/endpoints`).
    public let endpoints = Mutex<EmulatorEndpoints?>(nil)
    /// The store shared with other replicas (`--state-store`), when there is one.
    public let shared: (any SharedStateStore)?
    /// Copies the journal into the cluster journal and reports this replica, when `shared` is set.
    let replication: ClusterReplication?
    /// Held while a cluster reset is claimed and applied (this replica's own from `resetCluster` on): a path that
    /// finds the reset claimed returns only once it has been applied, so nothing it does next is forgotten.
    private let resetting = Mutex(())
    /// Run when another replica resets the cluster, for the layers above (devices) to forget theirs.
    private let clusterResetListeners = Mutex<[@Sendable () -> Void]>([])
    /// Run when another replica moves the manual clock, with the new now (devices fire their timers).
    private let clusterClockListeners = Mutex<[@Sendable (Millis) -> Void]>([])

    /// Builds the registries and loads what the store holds.
    public init(configuration: EmulatorConfiguration, clock: any EmulatorClock = SystemClock(),
                persistence: any StatePersistence = NoPersistence()) throws {
        self.configuration = configuration
        self.clock = clock
        self.clockIsSystem = clock is SystemClock
        self.persistence = persistence
        self.keys = KeyRegistry(persistence: persistence)
        self.tokens = TokenRegistry(persistence: persistence,
                                    replicaId: persistence is any SharedStateStore ? configuration.replicaId : nil)
        self.faults = FaultPlan(persistence: persistence)
        let journal = Journal(capacity: configuration.journalCapacity, enabled: configuration.journalEnabled)
        self.journal = journal
        var replication: ClusterReplication?
        if let store = persistence as? any SharedStateStore {
            replication = ClusterReplication(store: store, journal: journal, metrics: metrics, clock: clock,
                                             capacity: configuration.journalCapacity,
                                             holdsAnswers: configuration.clusterJournal == .durable
                                                && configuration.journalEnabled)
        }
        self.replication = replication
        // A channel is created on an APNs connection's event loop: its copy to the store is left to the replication
        // thread, so no connection waits on Redis.
        var copyChannel: (@Sendable (String, ChannelInfo?) -> Void)?
        if let replication { copyChannel = { id, info in replication.copyChannel(id, info) } }
        self.channels = ChannelRegistry(maximumChannelsPerApp: configuration.maximumChannelsPerApp, changed: copyChannel)
        var shaping = configuration.shaping
        shaping.maxConcurrentStreams = configuration.maxConcurrentStreams
        shaping.tokenRateLimit = configuration.tokenRateLimit
        shaping.tokenRateWindowMs = Int64(configuration.tokenRateWindowSeconds * 1000)
        self.shaping = ShapingStore(shaping)
        self.initialShaping = shaping
        self.shared = persistence as? any SharedStateStore
        // Numbered before the load, so this replica counts as having every change up to it.
        let startVersion = try shared?.currentVersion()
        let stored = try persistence.load()
        try keys.restore(stored.keys)
        tokens.restore(stored.tokens)
        faults.restore(stored.faults)
        if let shared {
            if let json = try shared.shaping() { self.shaping.update(try Self.decodeShaping(json)) }
            channels.restore(try Self.decodeChannels(shared.channels()))
            if let json = try shared.clock() { try applyClock(json) }
            if let startVersion { try shared.markApplied(startVersion) }
            if let replication { try shared.claimReplicaId(replication.incarnation, ttlMillis: ClusterReplication.heartbeatTTLMillis) }
            replication?.resetHappened(epoch: try shared.currentEpoch(), clearedThrough: journal.newestId)
            replication?.onMissedReset { [weak self] epoch in self?.applyClusterReset(epoch) }
            // Subscribed before the load above, so a change made meanwhile arrives here too.
            shared.watch { [weak self] change in self?.applyShared(change) }
        }
        if configuration.registerSampleKey { try registerSampleKeyIfPresent() }
    }

    /// Starts copying the journal to the shared store and reporting this replica (no-op without one).
    public func startReplication() {
        guard let replication else { return }
        let endpoints = endpoints.withLock { $0 }
        let controlURL = endpoints.map { "http://\(Self.advertisedHost(configuration)):\($0.controlPort)" }
        replication.start(endpoints: endpoints, controlURL: controlURL)
    }

    /// The host other replicas reach this one on: `--advertise-host`, else `--host` unless it is a wildcard
    /// address, else this machine's host name (a container's name on its network).
    static func advertisedHost(_ configuration: EmulatorConfiguration) -> String {
        if let host = configuration.advertiseHost { return Self.bracketed(host) }
        switch configuration.host {
        case "0.0.0.0", "::", "":
            var name = [CChar](repeating: 0, count: 256)
            guard gethostname(&name, name.count) == 0 else { return "127.0.0.1" }
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case let host: return Self.bracketed(host)
        }
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Copies what is left of the journal, reports this replica stopped and closes the shared store.
    public func stopReplication() {
        replication?.stop()
        shared?.stop()
    }

    /// Up to `limit` cluster journal entries after `position` (nil: the oldest kept); nil without a shared store.
    public func clusterJournal(after position: String?, limit: Int) throws -> ClusterJournalPage? {
        guard let shared else { return nil }
        return try ClusterJournalPage.read(shared, after: position, limit: limit)
    }

    /// With a shared store: the virtual devices this replica's reports list (count and ids), for the cluster's
    /// device lookup.
    public func reportDevices(_ devices: @escaping @Sendable () -> (count: Int, ids: [String])) {
        replication?.reportDevices(devices)
    }

    /// The replicas and the cluster journal's size as this replica last read them (once a second), nil before.
    public var lastCluster: (replicas: [SharedReplica], journalCount: Int)? { replication?.lastCluster }

    /// Local journal entries dropped before they could be copied into the cluster journal.
    public var replicationMissed: Int64? { replication?.missedCount }

    /// The newest local journal id copied into the cluster journal, and why the last copy failed.
    public var replicationForwardedId: Int64? { replication?.forwardedId }
    public var replicationError: String? { replication?.lastError }

    /// Runs `body` whenever another replica resets the cluster (after this one's registries forgot theirs).
    public func onClusterReset(_ body: @escaping @Sendable () -> Void) {
        clusterResetListeners.withLock { $0.append(body) }
    }

    /// Runs `body` whenever another replica moves the manual clock (after this one's clock moved too).
    public func onClusterClockMoved(_ body: @escaping @Sendable (Millis) -> Void) {
        clusterClockListeners.withLock { $0.append(body) }
    }

    /// The manual clock as replicas share it.
    private struct SharedClock: Codable {
        var now: Millis
        var frozen: Bool
    }

    /// Before the manual clock moves, freezes or resumes through this replica's control API: with a shared store,
    /// every replica on a manual clock follows (none goes back in time). Written first, so a store that refuses
    /// it leaves this replica's clock where it was too.
    public func shareClock(now: Millis, frozen: Bool) throws {
        guard let shared, clock is ManualClock else { return }
        try shared.setClock(Array(try JSONEncoder().encode(SharedClock(now: now, frozen: frozen))))
    }

    private func applyClock(_ json: [UInt8]) throws {
        guard let manual = clock as? ManualClock else { return }
        let shared = try JSONDecoder().decode(SharedClock.self, from: Data(json))
        if shared.frozen { manual.freeze() } else { manual.resume() }
        manual.set(to: shared.now)
    }

    /// Changes the shaping; with a shared store every replica applies it.
    public func updateShaping(_ settings: ShapingSettings) throws {
        if let shared { try shared.setShaping(Array(try JSONEncoder().encode(settings))) }
        shaping.update(settings)
    }

    /// Another replica's change: the value is read back from the store and set in memory, without writing it
    /// again; then the store learns this replica has it (what `syncCluster` waits on). A read that fails leaves
    /// memory as it was and says so on stderr (the feed goes on).
    private func applyShared(_ change: SharedStateChange) {
        guard let shared else { return }
        do {
            var version = change.version
            switch change.kind {
            case .key(let id):
                if let record = try shared.key(id) { try keys.adopt(record) } else { keys.forget(keyId: id) }
            case .token(let token):
                if let record = try shared.token(token) { tokens.adopt(record) } else { tokens.forget(token) }
            case .fault(let id):
                if let rule = try shared.fault(id) { faults.adopt(rule) } else { faults.forget(id: id) }
            case .shaping:
                shaping.update(try shared.shaping().map(Self.decodeShaping) ?? initialShaping)
            case .clock:
                if let json = try shared.clock() {
                    try applyClock(json)
                    let now = clock.now()
                    for listener in clusterClockListeners.withLock({ $0 }) { listener(now) }
                }
            case .channel(let id):
                channels.adopt(id, try shared.channel(id).map { try JSONDecoder().decode(ChannelInfo.self, from: Data($0)) })
            case .everything:
                // Numbered before the read: whatever the read returns is at least that new.
                version = try shared.currentVersion()
                try reloadShared()
            case .reset:
                // This replica's own reset is claimed by `reset`, unless its reply was lost and it never was.
                applyClusterReset(try shared.currentEpoch())
            }
            if let version { try shared.markApplied(version) }
        } catch {
            let why = "apns-emulator: applying \(change.kind) from the shared store: \(error); reloading everything\n"
            FileHandle.standardError.write(Data(why.utf8))
            reloadUntilItWorks()
        }
    }

    /// After a change could not be applied: read the whole shared state again, with backoff, until it works
    /// (on the feed's thread, so later notices wait meanwhile and none is applied out of order).
    private func reloadUntilItWorks() {
        var pause = 0.2
        for _ in 0..<30 {
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 2)
            guard let shared else { return }
            do {
                let version = try shared.currentVersion()
                try reloadShared()
                try shared.markApplied(version)
                return
            } catch {
                FileHandle.standardError.write(Data("apns-emulator: reloading the shared state: \(error)\n".utf8))
            }
        }
    }

    private func reloadShared() throws {
        guard let shared else { return }
        // A reset whose notice was lost (the feed reconnected): this replica forgets as if it had heard it.
        let epoch = try shared.currentEpoch()
        if let replication, epoch < replication.appliedEpoch { replication.storeEpochFell(to: epoch) }
        applyClusterReset(epoch)
        let stored = try shared.load()
        try keys.restore(stored.keys)
        tokens.restore(stored.tokens)
        faults.restore(stored.faults)
        shaping.update(try shared.shaping().map(Self.decodeShaping) ?? initialShaping)
        channels.restore(try Self.decodeChannels(shared.channels()))
        if let json = try shared.clock() { try applyClock(json) }
    }

    /// Why `syncCluster` gave up: the replicas still behind, with the change each has.
    public struct ClusterSyncTimeout: Error, CustomStringConvertible {
        public let version: Int64
        public let behind: [String: Int64]
        public var description: String {
            "replicas had not applied change \(version) in time: "
                + behind.sorted { $0.key < $1.key }.map { "\($0.key) at \($0.value)" }.joined(separator: ", ")
        }
    }

    /// Returns once every live replica has applied every shared change made before the call (at once without a
    /// shared store); the change number waited for.
    public func syncCluster(timeout: Duration) throws -> Int64 {
        guard let shared else { return 0 }
        let target = try shared.currentVersion()
        let deadline = ContinuousClock.now + timeout
        var pause = 0.005
        while true {
            let live = try shared.replicas().filter(\.live).map(\.id)
            let applied = try shared.appliedVersions()
            let behind = Dictionary(uniqueKeysWithValues: live.compactMap { id -> (String, Int64)? in
                let at = applied[id] ?? 0
                return at >= target ? nil : (id, at)
            })
            if behind.isEmpty { return target }
            guard ContinuousClock.now < deadline else { throw ClusterSyncTimeout(version: target, behind: behind) }
            // Quick while the change is fresh, then gentler: waiters share the connection the feed reads back on.
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.05)
        }
    }

    private static func decodeChannels(_ stored: [String: [UInt8]]) throws -> [String: ChannelInfo] {
        let decoder = JSONDecoder()
        return try stored.mapValues { try decoder.decode(ChannelInfo.self, from: Data($0)) }
    }

    private static func decodeShaping(_ json: [UInt8]) throws -> ShapingSettings {
        try JSONDecoder().decode(ShapingSettings.self, from: Data(json))
    }

    /// "Now" for a request (every push reads it): `clock.now()`, except that with the real clock it is the
    /// wall time of the socket read that brought the request (`EventLoop.readAtWallMillis`), so a request
    /// costs no clock read or call through the existential here.
    @inline(__always)
    public func now(readAtWallMillis: Millis) -> Millis { clockIsSystem ? readAtWallMillis : clock.now() }

    /// Everything that persists, as one snapshot (state export).
    public func exportState() -> EmulatorState {
        EmulatorState(keys: keys.all(), tokens: tokens.all(), faults: faults.all())
    }

    /// Replaces keys, tokens and faults with `state` (state import). Validated whole before anything
    /// changes: a bad key PEM leaves the current state untouched.
    public func importState(_ state: EmulatorState) throws {
        guard state.version <= EmulatorState.currentVersion else {
            throw EmulatorStateError.unsupportedVersion(state.version)
        }
        for key in state.keys { _ = try PublicKey(pem: key.publicKeyPem) }
        try persistence.replaceAll(with: state)
        try keys.restore(state.keys)
        tokens.restore(state.tokens)
        faults.restore(state.faults)
    }

    /// Forgets keys, tokens, faults and the journal; the sample key comes back if configured. With a shared
    /// store the whole cluster forgets them (and the cluster journal).
    public func reset() throws {
        if let shared, let replication {
            // Under the lock from the store's reset on, so the feed, a reload or the copier that learns of it
            // meanwhile finds it applied (and its listeners, for other replicas' resets, are not run for this one).
            try resetting.withLock { _ in _ = replication.applyReset(try shared.resetCluster(), forget: forgetAll) }
        } else {
            try persistence.replaceAll(with: EmulatorState())
            forgetAll()
        }
        if configuration.registerSampleKey { try registerSampleKeyIfPresent() }
    }

    /// Forgets what the cluster's reset number `epoch` cleared, once: whichever of the feed, a reload and the
    /// journal's copier learns of it first (the others wait, then find it claimed); tells the reset listeners.
    private func applyClusterReset(_ epoch: Int64) {
        guard let replication else { return }
        resetting.withLock { _ in
            guard replication.applyReset(epoch, forget: forgetAll) else { return }
            for listener in clusterResetListeners.withLock({ $0 }) { listener() }
        }
    }

    /// The newest journal id it cleared.
    @discardableResult
    private func forgetAll() -> Int64 {
        keys.removeAll()
        tokens.removeAll()
        faults.removeAll()
        channels.removeAll()
        defer { shaping.update(initialShaping) }
        return journal.clear()
    }

    /// Registers `AuthKey_<sampleKeyId>.p8` from the certificates folder as a legacy team key.
    private func registerSampleKeyIfPresent() throws {
        let file = URL(fileURLWithPath: configuration.certificatesDirectory)
            .appendingPathComponent("AuthKey_\(DevCertificates.sampleKeyId).p8")
        guard let pem = try? String(contentsOf: file, encoding: .utf8) else { return }
        let key = try PrivateKey(pem: pem)
        try keys.register(ProviderKeyRecord(
            keyId: DevCertificates.sampleKeyId, teamId: DevCertificates.sampleTeamId, kind: .team,
            publicKeyPem: key.publicKeyPEM, createdAt: clock.now()))
    }
}

/// Why a state snapshot was refused.
public enum EmulatorStateError: Error, CustomStringConvertible {
    case unsupportedVersion(Int)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v):
            return "state snapshot version \(v) is newer than this emulator understands (\(EmulatorState.currentVersion))"
        }
    }
}
