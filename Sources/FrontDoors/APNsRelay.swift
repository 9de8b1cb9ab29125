import APNsProtocol
import Dispatch
import Foundation
import H2Transport
import OpenSSLSupport
import Synchronization

/// The front doors' APNs provider: sends each relayed push to this emulator's own APNs listeners over HTTP/2 and
/// TLS, signed with the project's APNs key, so it meets the same validation, journal and delivery as any sender's.
package final class APNsRelay: Sendable {
    /// Where the emulator's APNs listeners are.
    package struct Target: Sendable {
        package var host: String
        package var productionPort: Int
        package var sandboxPort: Int
        package init(host: String, productionPort: Int, sandboxPort: Int) {
            self.host = host
            self.productionPort = productionPort
            self.sandboxPort = sandboxPort
        }
    }

    /// APNs' answer to one push.
    package struct Answer: Sendable, Equatable {
        package var status: Int
        package var reason: String?
        package var apnsId: String?
    }

    private let caFile: String
    /// Made on the first relayed push, so an emulator nobody sends FCM messages to runs no client loop.
    private let client = Mutex<H2Client?>(nil)
    /// Set once the emulator's listeners are bound.
    private let target = Mutex<Target?>(nil)
    private let connections = Mutex<[Bool: H2ClientConnection]>([:])
    /// Provider tokens by key id, with when they were made: APNs refuses a key's token refreshed more often than
    /// every 20 minutes and expires one older than an hour, so a token is reused for 30 minutes.
    private let tokens = Mutex<[String: (token: String, issuedAt: Int64)]>([:])
    private static let timeout: DispatchTimeInterval = .seconds(15)

    package init(caFile: String) {
        self.caFile = caFile
    }

    private func makeClient() throws -> H2Client {
        try client.withLock { c in
            if let c { return c }
            let made = try H2Client(tls: TLSClientConfiguration(trustRootsFile: caFile))
            c = made
            return made
        }
    }

    package func point(at target: Target) { self.target.withLock { $0 = target } }

    package func shutdown() {
        let open = connections.withLock { c in
            defer { c = [:] }
            return Array(c.values)
        }
        for c in open { c.close() }
        client.withLock { c in
            c?.shutdown()
            c = nil
        }
    }

    /// Sends `push` for `project`; blocks the calling (front-door) thread until APNs answers.
    func send(_ push: RelayedPush, keyId: String, teamId: String, key: PrivateKey, nowSeconds: Int64) -> Result<Answer, FCMError> {
        let jwt: String
        do {
            jwt = try providerToken(keyId: keyId, teamId: teamId, key: key, nowSeconds: nowSeconds)
        } catch {
            return .failure(FCMError(.thirdPartyAuthError, "The project's APNs auth key cannot sign: \(error)"))
        }
        let connection: H2ClientConnection
        switch self.connection(sandbox: push.sandbox) {
        case .success(let c): connection = c
        case .failure(let e): return .failure(e)
        }
        var headers = [H2Header("authorization", "bearer " + jwt)]
        for h in push.headers { headers.append(H2Header(h.name, h.value)) }
        let host = push.sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com"
        let request = H2Request(authority: host, path: "/3/device/" + push.apnsToken, headers: headers, body: push.payload)
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<H2Response, H2ClientError>?>(nil)
        connection.send(request) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.timeout) == .success, let answer = result.withLock({ $0 }) else {
            return .failure(FCMError(.unavailable, "APNs did not answer within 15 s"))
        }
        switch answer {
        case .success(let response):
            let reason = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
            return .success(Answer(status: response.status, reason: reason, apnsId: response["apns-id"]))
        case .failure(let error):
            connections.withLock { _ = $0.removeValue(forKey: push.sandbox) }
            return .failure(FCMError(.unavailable, "The connection to APNs failed: \(error)"))
        }
    }

    private func providerToken(keyId: String, teamId: String, key: PrivateKey, nowSeconds: Int64) throws -> String {
        if let cached = tokens.withLock({ $0[keyId] }), nowSeconds - cached.issuedAt < 1800, nowSeconds >= cached.issuedAt {
            return cached.token
        }
        let token = try ProviderTokenSigner.makeToken(privateKey: key, keyId: keyId, teamId: teamId, issuedAt: nowSeconds)
        tokens.withLock { $0[keyId] = (token, nowSeconds) }
        return token
    }

    /// The open connection to one listener, connecting (and waiting for it) when there is none.
    private func connection(sandbox: Bool) -> Result<H2ClientConnection, FCMError> {
        if let c = connections.withLock({ $0[sandbox] }), c.acceptsRequests { return .success(c) }
        guard let target = self.target.withLock({ $0 }) else {
            return .failure(FCMError(.unavailable, "The emulator's APNs listeners are not started"))
        }
        let port = sandbox ? target.sandboxPort : target.productionPort
        let client: H2Client
        do { client = try makeClient() } catch { return .failure(FCMError(.internalError, "Cannot make the APNs client: \(error)")) }
        let host = target.host
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<H2ClientConnection, any Error>?>(nil)
        // A callback, not a Task: the caller may be on Swift concurrency's pool (the scenario runner's in-process
        // control calls), which a Task waited on with a semaphore could starve.
        client.connect(host: host, port: port, serverName: sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com") { r in
            result.withLock { $0 = r }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.timeout) == .success, let outcome = result.withLock({ $0 }) else {
            return .failure(FCMError(.unavailable, "APNs did not accept a connection within 15 s"))
        }
        switch outcome {
        case .success(let c):
            let previous = connections.withLock { $0.updateValue(c, forKey: sandbox) }
            previous?.close()
            return .success(c)
        case .failure(let error):
            return .failure(FCMError(.unavailable, "Cannot connect to APNs: \(error)"))
        }
    }
}

extension APNsRelay.Answer {
    /// APNs' rejection as FCM reports it (nil for a 200). From FCM's error-code table: an APNs credential problem is
    /// THIRD_PARTY_AUTH_ERROR, a token APNs no longer knows UNREGISTERED, APNs throttling QUOTA_EXCEEDED, APNs
    /// unavailable UNAVAILABLE; other refusals are invalid arguments, with Apple's reason in the message.
    var fcmError: FCMError? {
        guard status != 200 else { return nil }
        let reason = self.reason ?? "HTTP \(status)"
        switch (status, reason) {
        case (410, _), (400, "BadDeviceToken"):
            return FCMError(.unregistered, "Requested entity was not found. (APNs: \(reason))")
        case (403, _):
            return FCMError(.thirdPartyAuthError, "Auth error from APNS or Web Push Service (APNs: \(reason))")
        case (429, _):
            return FCMError(.quotaExceeded, "Quota exceeded for this device (APNs: \(reason))")
        case (500..., _):
            return FCMError(.unavailable, "The service is currently unavailable. (APNs: \(reason))")
        default:
            return FCMError(.invalidArgument, "Request contains an invalid argument. (APNs: \(status) \(reason))")
        }
    }
}
