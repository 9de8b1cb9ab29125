import APNsProtocol
import Foundation
import OpenSSLSupport
import StateStore
import Synchronization

/// The emulator's shared state: registries, journal, faults, clock and the store behind them.
///
/// One instance per running emulator, shared by the APNs handler (hot path, reads), the control API
/// (writes) and, later, the devices. Each registry locks itself; nothing here needs a lock of its own.
public final class EmulatorServices: Sendable {
    public let configuration: EmulatorConfiguration
    public let clock: any EmulatorClock
    /// Whether `clock` is the real clock, so `now(readAtWallMillis:)` can skip it.
    private let clockIsSystem: Bool
    public let keys: KeyRegistry
    public let tokens: TokenRegistry
    public let journal: Journal
    public let faults: FaultPlan
    /// Broadcast channels (kept in memory only: they are cheap to recreate and Apple's are per test run).
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

    /// Builds the registries and loads what the store holds.
    public init(configuration: EmulatorConfiguration, clock: any EmulatorClock = SystemClock(),
                persistence: any StatePersistence = NoPersistence()) throws {
        self.configuration = configuration
        self.clock = clock
        self.clockIsSystem = clock is SystemClock
        self.persistence = persistence
        self.keys = KeyRegistry(persistence: persistence)
        self.tokens = TokenRegistry(persistence: persistence)
        self.faults = FaultPlan(persistence: persistence)
        self.channels = ChannelRegistry(maximumChannelsPerApp: configuration.maximumChannelsPerApp)
        self.journal = Journal(capacity: configuration.journalCapacity, enabled: configuration.journalEnabled)
        var shaping = configuration.shaping
        shaping.maxConcurrentStreams = configuration.maxConcurrentStreams
        shaping.tokenRateLimit = configuration.tokenRateLimit
        shaping.tokenRateWindowMs = Int64(configuration.tokenRateWindowSeconds * 1000)
        self.shaping = ShapingStore(shaping)
        self.initialShaping = shaping
        let stored = try persistence.load()
        try keys.restore(stored.keys)
        tokens.restore(stored.tokens)
        faults.restore(stored.faults)
        if configuration.registerSampleKey { try registerSampleKeyIfPresent() }
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

    /// Forgets keys, tokens, faults and the journal; the sample key comes back if configured.
    public func reset() throws {
        try persistence.replaceAll(with: EmulatorState())
        keys.removeAll()
        tokens.removeAll()
        faults.removeAll()
        channels.removeAll()
        journal.clear()
        shaping.update(initialShaping)
        if configuration.registerSampleKey { try registerSampleKeyIfPresent() }
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
