import APNsProtocol
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
    /// Rejected requests so far (BadDeviceToken counts double), for "GOAWAY after N errors".
    var errorScore = 0
    /// MAX_CONCURRENT_STREAMS as currently advertised, to send SETTINGS only on a change.
    var advertisedStreams: Int
    /// The header array of this connection's 200 answers, rewritten for each one: once the previous
    /// response is sent nothing else holds it, so an accepted push costs no array allocation.
    @exclusivity(unchecked) var successHeaders: [H2Header] = []

    init(auth: ConnectionAuth, advertisedStreams: Int, listenerEnvironment: APNsEnvironment) {
        self.auth = auth
        self.listenerEnvironment = listenerEnvironment
        self.advertisedStreams = advertisedStreams
    }
}
