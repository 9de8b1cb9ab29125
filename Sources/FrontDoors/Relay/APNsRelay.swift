import APNsProtocol
import Dispatch
import Foundation
import H2Transport
import OpenSSLSupport
import Synchronization

/// The front doors' APNs provider: sends each relayed push to this emulator's own APNs listeners over HTTP/2 and
/// TLS, signed with the project's (or app's) APNs key, so it meets the same validation, journal and delivery as
/// any sender's.
///
/// Callers block (the front doors' libmicrohttpd threads, or a control request) until APNs answers or 15 s pass;
/// the waits are on the client's event loop, never on Swift concurrency's pool.
package final class APNsRelay: Sendable {
    private let caFile: String
    /// Made on the first relayed push, so an emulator nobody sends provider messages to runs no client loop.
    private let client = Mutex<H2Client?>(nil)
    /// Set once the emulator's listeners are bound.
    private let target = Mutex<RelayTarget?>(nil)
    private let slots = Mutex<[RelaySender: RelaySlot]>([:])
    private static let timeout: DispatchTimeInterval = .seconds(15)
    /// A provider token is reused this long: APNs refuses a key's token refreshed more often than every 20 minutes
    /// and expires one older than an hour.
    private static let tokenLifetimeSeconds: Int64 = 1800

    package init(caFile: String) {
        self.caFile = caFile
    }

    package func point(at target: RelayTarget) { self.target.withLock { $0 = target } }

    package func shutdown() {
        let open = slots.withLock { s in
            defer { s = [:] }
            return s.values.compactMap(\.connection)
        }
        for c in open { c.close() }
        client.withLock { c in
            c?.shutdown()
            c = nil
        }
    }

    /// Sends `push` as the provider with this team and key; blocks until APNs answers.
    package func send(_ push: RelayedPush, keyId: String, teamId: String, key: PrivateKey, nowSeconds: Int64)
        -> Result<RelayAnswer, FCMError>
    {
        let sender = RelaySender(sandbox: push.sandbox, teamId: teamId, keyId: keyId)
        let jwt: String
        do {
            jwt = try providerToken(sender, key: key, nowSeconds: nowSeconds)
        } catch {
            return .failure(FCMError(.thirdPartyAuthError, "The APNs auth key cannot sign: \(error)"))
        }
        let connection: H2ClientConnection
        switch self.connection(sender, key: key) {
        case .success(let c): connection = c
        case .failure(let e): return .failure(e)
        }
        var headers = [H2Header("authorization", "bearer " + jwt)]
        for h in push.headers { headers.append(H2Header(h.name, h.value)) }
        let host = push.sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com"
        let request = H2Request(authority: host, path: "/3/device/" + push.apnsToken, headers: headers, body: push.payload)
        let wait = Wait<Result<H2Response, H2ClientError>>()
        connection.send(request) { wait.deliver($0) }
        guard let answer = wait.value(within: Self.timeout) else {
            return .failure(FCMError(.unavailable, "APNs did not answer within 15 s"))
        }
        switch answer {
        case .success(let response):
            let reason = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
            return .success(RelayAnswer(status: response.status, reason: reason, apnsId: response["apns-id"]))
        case .failure(let error):
            forget(connection, of: sender)
            return .failure(FCMError(.unavailable, "The connection to APNs failed: \(error)"))
        }
    }

    /// The slot for `sender` made with `key`; a slot made with another key is replaced (and its connection closed).
    private func slot(_ sender: RelaySender, key: PrivateKey, _ body: (RelaySlot) -> Void) {
        let stale: H2ClientConnection? = slots.withLock { s in
            var old: H2ClientConnection?
            if let existing = s[sender], existing.key !== key {
                old = existing.connection
                s[sender] = nil
            }
            let slot = s[sender] ?? RelaySlot(key: key)
            s[sender] = slot
            body(slot)
            return old
        }
        stale?.close()
    }

    private func providerToken(_ sender: RelaySender, key: PrivateKey, nowSeconds: Int64) throws -> String {
        var cached: String?
        slot(sender, key: key) { s in
            if let t = s.token, nowSeconds >= t.issuedAt, nowSeconds - t.issuedAt < Self.tokenLifetimeSeconds { cached = t.text }
        }
        if let cached { return cached }
        let token = try ProviderTokenSigner.makeToken(privateKey: key, keyId: sender.keyId, teamId: sender.teamId, issuedAt: nowSeconds)
        slot(sender, key: key) { $0.token = (token, nowSeconds) }
        return token
    }

    /// Drops `connection` from its slot if it is still the slot's, and closes it.
    private func forget(_ connection: H2ClientConnection, of sender: RelaySender) {
        slots.withLock { s in
            if s[sender]?.connection === connection { s[sender]?.connection = nil }
        }
        connection.close()
    }

    /// The sender's open connection, connecting (and waiting for it) when there is none.
    private func connection(_ sender: RelaySender, key: PrivateKey) -> Result<H2ClientConnection, FCMError> {
        var open: H2ClientConnection?
        slot(sender, key: key) { s in
            if let c = s.connection, c.acceptsRequests { open = c }
        }
        if let open { return .success(open) }
        guard let target = self.target.withLock({ $0 }) else {
            return .failure(FCMError(.unavailable, "The emulator's APNs listeners are not started"))
        }
        let client: H2Client
        do {
            client = try self.client.withLock { c in
                if let c { return c }
                let made = try H2Client(tls: TLSClientConfiguration(trustRootsFile: caFile))
                c = made
                return made
            }
        } catch {
            return .failure(FCMError(.internalError, "Cannot make the APNs client: \(error)"))
        }
        let wait = Wait<Result<H2ClientConnection, any Error>>()
        client.connect(host: target.host, port: sender.sandbox ? target.sandboxPort : target.productionPort,
                       serverName: sender.sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com") { result in
            // A connection that completes after the caller gave up is closed, not leaked.
            if !wait.deliver(result), case .success(let late) = result { late.close() }
        }
        guard let outcome = wait.value(within: Self.timeout) else {
            return .failure(FCMError(.unavailable, "APNs did not accept a connection within 15 s"))
        }
        switch outcome {
        case .success(let made):
            // Two callers may connect at once: the first to store its connection wins, the other's is closed.
            var winner = made
            slot(sender, key: key) { s in
                if let c = s.connection, c.acceptsRequests { winner = c } else { s.connection = made }
            }
            if winner !== made { made.close() }
            return .success(winner)
        case .failure(let error):
            return .failure(FCMError(.unavailable, "Cannot connect to APNs: \(error)"))
        }
    }
}
