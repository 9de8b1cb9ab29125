import APNsEmulator
import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport

/// One scenario sender: its credentials, and its HTTP/2 connections (one per environment and host,
/// reused across pushes as a real provider does, so per-connection rules apply).
///
/// Provider tokens are minted on the emulator's clock when a connection opens and renewed after 50
/// minutes, the way well-behaved senders refresh (Apple: between 20 and 60 minutes).
final class SenderSession {
    let spec: SenderSpec
    private let target: EmulatorTarget
    private var client: H2Client?
    private var connections: [String: (connection: H2ClientConnection, jwt: String?, mintedAt: Millis)] = [:]
    private var signingKey: (key: PrivateKey, keyId: String, teamId: String)?

    private let responseTimeout: Duration

    init(spec: SenderSpec, target: EmulatorTarget, responseTimeout: Duration = .seconds(30)) {
        self.spec = spec
        self.target = target
        self.responseTimeout = responseTimeout
    }

    /// Registers a generated key with the emulator (its private half comes back once).
    func prepare() async throws {
        switch spec.auth {
        case .bundledKey:
            let file = URL(fileURLWithPath: target.certificatesDirectory)
                .appendingPathComponent("AuthKey_\(DevCertificates.sampleKeyId).p8").path
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw RunnerError("sender '\(spec.name)': cannot read the bundled key \(file) (run apns-emulator certs)")
            }
            signingKey = (try PrivateKey(pem: pem), DevCertificates.sampleKeyId, DevCertificates.sampleTeamId)
        case .generatedKey(let kind, let environment, let topics, let teamId, let keyId):
            var body: [String: Any] = ["teamId": teamId, "keyId": keyId, "kind": kind]
            if let environment { body["environment"] = environment }
            if !topics.isEmpty { body["topics"] = topics }
            let created = try await target.control.object(
                "POST", "/_emulator/keys", body: Array(try JSONSerialization.data(withJSONObject: body)))
            guard let pem = created["privateKeyPem"] as? String else {
                throw RunnerError("sender '\(spec.name)': the emulator returned no private key")
            }
            signingKey = (try PrivateKey(pem: pem), keyId, teamId)
        case .certificate, .raw, .none:
            break
        }
    }

    /// Sends `request` on the connection for `environment`/`host` (a new one when asked or when the old
    /// one was closed); adds the authorization header for token senders.
    func send(method: String, path: String, headers: [H2Header], body: [UInt8], environment: APNsEnvironment,
              host: String, newConnection: Bool) async throws -> H2Response
    {
        let key = "\(environment.rawValue)|\(host)"
        if newConnection, let old = connections.removeValue(forKey: key) { old.connection.close() }
        // A connection the server closed (GOAWAY, a shutdown fault) is replaced, as a sender's pool would.
        if let old = connections[key], old.connection.isClosed { connections[key] = nil }
        let now = try await emulatorNow()
        if let existing = connections[key], signingKey != nil, now - existing.mintedAt > 50 * 60 * 1000 {
            connections[key] = (existing.connection, try mint(now), now)
        }
        if connections[key] == nil {
            let url = environment == .production ? target.endpoints.production : target.endpoints.sandbox
            let port = environment == .production ? target.endpoints.productionPort : target.endpoints.sandboxPort
            let address = URLComponents(string: url)?.host ?? "127.0.0.1"
            let connection = try await h2Client().connect(host: address, port: port, serverName: host)
            connections[key] = (connection, signingKey == nil ? nil : try mint(now), now)
        }
        var all = headers
        // A push that names its own authorization (a token minted by a `mint` step) sends that instead.
        let explicit = headers.contains { $0.name.lowercased() == "authorization" }
        switch explicit ? .none : spec.auth {
        case .raw(let value): all.insert(H2Header("authorization", value), at: 0)
        case .bundledKey, .generatedKey:
            if let jwt = connections[key]?.jwt { all.insert(H2Header("authorization", "bearer \(jwt)"), at: 0) }
        case .certificate, .none: break
        }
        let port = environment == .production ? target.endpoints.productionPort : target.endpoints.sandboxPort
        let r = H2Request(method: method, authority: "\(host):\(port)", path: path, headers: all, body: body)
        let connection = connections[key]!.connection
        switch await ResponseDeadline.send(r, on: connection, within: responseTimeout) {
        case .answered(let response):
            return response
        case .failed(let error):
            connection.close()
            connections[key] = nil
            throw RunnerError("the push could not be sent: \(error)")
        case .timedOut:
            // The stream may still be answered later: aborting ends it for good (a graceful close would
            // wait for that very answer).
            connection.abort()
            connections[key] = nil
            throw RunnerError("no response within \(responseTimeout) (a delay fault longer than that, or a stalled"
                              + " emulator); the connection was closed")
        }
    }

    /// A fresh provider token from this sender's key, on the emulator's clock.
    func mintToken() async throws -> String {
        try mint(try await emulatorNow())
    }

    private func mint(_ now: Millis) throws -> String {
        guard let signingKey else { return "" }
        return try ProviderTokenSigner.makeToken(
            privateKey: signingKey.key, keyId: signingKey.keyId, teamId: signingKey.teamId,
            issuedAt: (now + spec.issuedAtOffsetMillis) / 1000)
    }

    private func emulatorNow() async throws -> Millis {
        let clock = try await target.control.object("GET", "/_emulator/clock")
        return (clock["now"] as? NSNumber)?.int64Value ?? Millis(Date().timeIntervalSince1970 * 1000)
    }

    private func h2Client() throws -> H2Client {
        if let client { return client }
        var tls = TLSClientConfiguration(trustRootsFile: target.endpoints.ca)
        if case .certificate(let environment) = spec.auth {
            let dir = URL(fileURLWithPath: target.certificatesDirectory)
            tls = TLSClientConfiguration(
                trustRootsFile: target.endpoints.ca,
                certificateChainFile: dir.appendingPathComponent("client-\(environment.rawValue).pem").path,
                privateKeyFile: dir.appendingPathComponent("client-\(environment.rawValue)-key.pem").path)
        }
        let c = try H2Client(tls: tls, eventLoops: 1)
        client = c
        return c
    }

    /// Closes the connections and stops the client's loop (blocking briefly).
    func close() {
        for (_, c) in connections { c.connection.close() }
        connections.removeAll()
        client?.shutdown()
        client = nil
    }
}
