import H2Transport
import OpenSSLSupport

/// A sender's connection and provider token, and the key they were made with: a project or app given a new key
/// under the same id gets a new connection and token.
final class RelaySlot: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only under APNsRelay's `slots` lock.
    let key: PrivateKey
    var connection: H2ClientConnection?
    var token: (text: String, issuedAt: Int64)?

    init(key: PrivateKey) { self.key = key }
}
