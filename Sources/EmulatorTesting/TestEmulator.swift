import APNsEmulator
import APNsProtocol
import EmulatorControl
import Foundation
import H2Transport
import OpenSSLSupport
import StateStore
import VirtualDevices

/// The whole emulator in-process on free ports, with a controllable clock and clients that trust it:
/// what a test (ours, or a user's Swift test) needs to push to it over real TLS + HTTP/2.
public final class TestEmulator: Sendable {
    public let emulator: Emulator
    /// The virtual devices pushes are delivered to.
    public let devices: DeviceFarm
    public let endpoints: EmulatorEndpoints
    /// Time for every APNs rule; advance it to age tokens and connections.
    public let clock: ManualClock
    public let certificatesDirectory: String
    private let client: H2Client

    /// Starts an ephemeral emulator on 127.0.0.1 with every port chosen by the kernel.
    /// - Parameters:
    ///   - certificatesDirectory: the folder holding ca.pem, server.pem, the sample `.p8` (the bundled `certs/`).
    ///   - configure: changes to the configuration before start.
    public init(certificatesDirectory: String, configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws {
        var c = EmulatorConfiguration.inProcess(certificatesDirectory: certificatesDirectory, eventLoops: 2,
                                                shutdownGraceSeconds: 2)
        configure(&c)
        let clock = ManualClock()
        self.clock = clock
        self.certificatesDirectory = certificatesDirectory
        (self.emulator, self.devices) = try Emulator.withDevices(configuration: c, clock: clock)
        self.endpoints = try emulator.start()
        self.client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: endpoints.ca), eventLoops: 1)
    }

    public var services: EmulatorServices { emulator.services }

    /// Stops the emulator and the shared client.
    public func shutdown() {
        client.shutdown()
        emulator.shutdown()
    }

    /// The port of an environment's listener.
    public func port(_ environment: APNsEnvironment) -> Int {
        environment == .production ? endpoints.productionPort : endpoints.sandboxPort
    }

    /// The Apple host name of an environment (sent as SNI and `:authority`).
    public static func host(_ environment: APNsEnvironment) -> String {
        environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com"
    }

    /// A token-auth connection (no client certificate) to an environment's listener.
    public func connect(_ environment: APNsEnvironment = .production) async throws -> H2ClientConnection {
        try await client.connect(host: "127.0.0.1", port: port(environment), serverName: Self.host(environment))
    }

    /// A certificate-auth connection presenting `certificate`/`key` (PEM files).
    public func connect(_ environment: APNsEnvironment, certificate: String, key: String) async throws
        -> (H2Client, H2ClientConnection)
    {
        let c = try H2Client(tls: TLSClientConfiguration(
            trustRootsFile: endpoints.ca, certificateChainFile: certificate, privateKeyFile: key), eventLoops: 1)
        do {
            let connection = try await c.connect(host: "127.0.0.1", port: port(environment), serverName: Self.host(environment))
            return (c, connection)
        } catch {
            c.shutdown()
            throw error
        }
    }

    /// The bundled sample signing key.
    public func sampleKey() throws -> PrivateKey {
        let path = URL(fileURLWithPath: certificatesDirectory)
            .appendingPathComponent("AuthKey_\(DevCertificates.sampleKeyId).p8").path
        return try PrivateKey(pem: String(contentsOfFile: path, encoding: .utf8))
    }

    /// A provider token signed by the sample key, issued `ageSeconds` before the emulator's now.
    public func sampleJWT(ageSeconds: Int64 = 0) throws -> String {
        try ProviderTokenSigner.makeToken(
            privateKey: sampleKey(), keyId: DevCertificates.sampleKeyId, teamId: DevCertificates.sampleTeamId,
            issuedAt: clock.now() / 1000 - ageSeconds)
    }

    /// Registers a fresh device token for `bundleId` in `environment`.
    public func issueToken(bundleId: String = DevCertificates.sampleBundleId, environment: APNsEnvironment = .production,
                           kind: DeviceTokenKind = .app) throws -> String {
        try services.tokens.issue(bundleId: bundleId, environment: environment, kind: kind, now: clock.now()).token
    }

    /// A push request as a sender would build it.
    public func push(to token: String, environment: APNsEnvironment = .production, jwt: String?,
                     topic: String? = DevCertificates.sampleBundleId, headers: [H2Header] = [],
                     payload: String = #"{"aps":{"alert":"hello"}}"#, method: String = "POST", path: String? = nil)
        -> H2Request
    {
        var all: [H2Header] = []
        if let jwt { all.append(H2Header("authorization", "bearer \(jwt)")) }
        if let topic { all.append(H2Header("apns-topic", topic)) }
        all += headers
        return H2Request(method: method, authority: "\(Self.host(environment)):\(port(environment))",
                         path: path ?? "/3/device/\(token)", headers: all, body: Array(payload.utf8))
    }
}
