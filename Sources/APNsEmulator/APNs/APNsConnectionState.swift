import APNsProtocol
import Foundation
import H2Transport

/// What the APNs handler remembers about one connection (kept in `H2ServerConnection.userInfo`).
///
/// Loop-confined like its connection: only the handler, running on that loop, touches it.
final class APNsConnectionState {
    let auth: ConnectionAuth
    /// The environment of the listener the connection arrived on (the default when no Apple host is named).
    let listenerEnvironment: APNsEnvironment
    /// Unchecked exclusivity (here and below): the validator borrows it `inout` on every push, and the
    /// runtime check costs a call per access. Only the connection's loop touches this object, one request
    /// at a time, and nothing reached while it is borrowed (registries, the journal) can reach back here.
    @exclusivity(unchecked) var authState = ConnectionAuthState()
    /// What the validator reads, kept for the connection's life: each request sets its clock and environment.
    /// Built per request it retained and released the emulator's key and token lookups and the verifier every
    /// push. Unchecked exclusivity for the same reason as `authState`, borrowed alongside it.
    @exclusivity(unchecked) var validation: ValidationContext
    /// Rejected requests so far (BadDeviceToken counts double), for "GOAWAY after N errors".
    var errorScore = 0
    /// MAX_CONCURRENT_STREAMS as currently advertised, to send SETTINGS only on a change.
    var advertisedStreams: Int
    /// The fields of this connection's 200 answers, rewritten for each one: they move into each response and back
    /// once it is sent, so an accepted push costs no allocation and no reference counting for them.
    @exclusivity(unchecked) var successFields = H2HeaderList()

    /// This connection's copy of the shaping settings, and the store generation it was taken at.
    var shaping: ShapingSettings
    var shapingGeneration: UInt64
    /// Requests in the current one-second window (connection rate limit) and the window's start.
    var windowStart: Millis = 0
    var windowCount = 0
    /// Requests carried so far (GOAWAY after N), and whether a recycling GOAWAY went out.
    var requestCount = 0
    var recycled = false
    let openedAt: Millis
    /// Draws for latency and brownouts (SplitMix64: cheap, per connection, no lock).
    var random: UInt64
    /// Counters the stats endpoint reads.
    let stats: ConnectionStats
    /// `authState.tokenUpdates` at the previous request, to count token refreshes.
    var seenTokenUpdates = 0

    init(auth: ConnectionAuth, advertisedStreams: Int, listenerEnvironment: APNsEnvironment, shaping: ShapingSettings,
         shapingGeneration: UInt64, openedAt: Millis, stats: ConnectionStats, validation: ValidationContext) {
        self.validation = validation
        self.shaping = shaping
        self.shapingGeneration = shapingGeneration
        self.openedAt = openedAt
        self.stats = stats
        self.random = UInt64.random(in: 1...UInt64.max)
        self.auth = auth
        self.listenerEnvironment = listenerEnvironment
        self.advertisedStreams = advertisedStreams
    }

    /// A uniform draw in [0, 1).
    func nextUniform() -> Double {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// A standard normal draw (Box–Muller).
    func nextNormal() -> Double {
        let u1 = max(nextUniform(), 1e-12), u2 = nextUniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
