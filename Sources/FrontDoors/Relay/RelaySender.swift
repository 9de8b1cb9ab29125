import H2Transport
import OpenSSLSupport

/// Who a relayed push is sent as: one APNs provider identity (an environment, a team and its key), with its own
/// HTTP/2 connection, because APNs ties a connection to the first team and key that use it.
struct RelaySender: Hashable, Sendable {
    var sandbox: Bool
    var teamId: String
    var keyId: String
}
