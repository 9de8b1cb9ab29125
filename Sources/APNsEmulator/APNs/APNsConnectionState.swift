import APNsProtocol
import Foundation

/// What the provider API remembers about one connection: its authentication, the rules' counters and its copy
/// of the shaping settings. The transport holds it for the connection's life and hands it to each request.
///
/// Loop-confined like its connection: only the handler and its pipeline, running on that loop, touch it, one
/// request at a time. So the fields every request reads or writes skip the dynamic exclusivity check
/// (`@exclusivity(unchecked)`): nothing reached while one is borrowed (registries, the journal) reaches back here.
package final class APNsConnectionState {
    let auth: ConnectionAuth
    /// The environment of the listener the connection arrived on (the default when no Apple host is named).
    let listenerEnvironment: APNsEnvironment
    /// The SNI the client sent, if any (fixed by the handshake).
    let serverName: String?
    @exclusivity(unchecked) var authState = ConnectionAuthState()
    /// What the validator reads, kept for the connection's life: each request sets its clock and environment.
    @exclusivity(unchecked) var validation: ValidationContext
    /// Rejected requests so far (BadDeviceToken counts double), for "GOAWAY after N errors".
    @exclusivity(unchecked) var errorScore = 0
    /// MAX_CONCURRENT_STREAMS as the rules want it advertised (the handler sends SETTINGS when it changes).
    @exclusivity(unchecked) var advertisedStreams: Int

    /// This connection's copy of the shaping settings, and the store generation it was taken at.
    @exclusivity(unchecked) var shaping: ShapingSettings
    @exclusivity(unchecked) var shapingGeneration: UInt64
    /// Requests in the current one-second window (connection rate limit) and the window's start.
    @exclusivity(unchecked) var windowStart: Millis = 0
    @exclusivity(unchecked) var windowCount = 0
    /// Requests carried so far (GOAWAY after N), and whether a recycling GOAWAY went out.
    @exclusivity(unchecked) var requestCount = 0
    @exclusivity(unchecked) var recycled = false
    let openedAt: Millis
    /// Draws for latency and brownouts.
    @exclusivity(unchecked) var random = SplitMix64()
    /// Counters the stats endpoint reads.
    let stats: ConnectionStats
    /// `authState.tokenUpdates` at the previous request, to count token refreshes.
    @exclusivity(unchecked) var seenTokenUpdates = 0
    /// Builds this connection's answers (reusing one field list for all its 200s).
    @exclusivity(unchecked) var responses: APNsResponseWriter

    init(auth: ConnectionAuth, advertisedStreams: Int, listenerEnvironment: APNsEnvironment, serverName: String?,
         shaping: ShapingSettings,
         shapingGeneration: UInt64, openedAt: Millis, stats: ConnectionStats, validation: ValidationContext,
         responses: APNsResponseWriter) {
        self.validation = validation
        self.shaping = shaping
        self.shapingGeneration = shapingGeneration
        self.openedAt = openedAt
        self.stats = stats
        self.auth = auth
        self.listenerEnvironment = listenerEnvironment
        self.serverName = serverName
        self.advertisedStreams = advertisedStreams
        self.responses = responses
    }
}
