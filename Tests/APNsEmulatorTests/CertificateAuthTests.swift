import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import OpenSSLSupport
import Testing

@Suite("Certificate auth over mTLS")
struct CertificateAuthTests {
    static let sandboxCert = bundledCertificates + "/client-sandbox.pem"
    static let sandboxKey = bundledCertificates + "/client-sandbox-key.pem"
    static let productionCert = bundledCertificates + "/client-production.pem"
    static let productionKey = bundledCertificates + "/client-production-key.pem"

    @Test func certificatesWorkInTheirOwnEnvironmentAndIgnoreAuthorization() async throws {
        try await withEmulator { emu in
            for (env, cert, key) in [(APNsEnvironment.sandbox, Self.sandboxCert, Self.sandboxKey),
                                     (.production, Self.productionCert, Self.productionKey)] {
                let token = try emu.issueToken(environment: env)
                let (client, c) = try await emu.connect(env, certificate: cert, key: key)
                defer { client.shutdown() }
                // Like Apple's universal certificates, ours list several topics (app, voip, complication), so
                // apns-topic is required; the authorization header is ignored.
                expectRejection(try await c.send(emu.push(to: token, environment: env, jwt: nil, topic: nil)), .missingTopic)
                let r = try await c.send(emu.push(to: token, environment: env, jwt: "ignored.for.certificates"))
                #expect(r.status == 200, "\(env): \(r.bodyText)")
                // VoIP and complication topics are allowed for the certificate's app.
                let voip = try await c.send(emu.push(to: token, environment: env, jwt: nil, topic: "com.example.app.voip",
                                                     headers: [H2Header("apns-push-type", "voip")]))
                #expect(voip.status == 200, "\(env) voip: \(voip.bodyText)")
                let entry = try #require(emu.services.journal.query(JournalFilter(token: token)).first)
                #expect(entry.authMode == "certificate")
            }
        }
    }

    @Test func certificateForTheOtherEnvironmentIsBadCertificateEnvironment() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let (client, c) = try await emu.connect(.production, certificate: Self.sandboxCert, key: Self.sandboxKey)
            defer { client.shutdown() }
            expectRejection(try await c.send(emu.push(to: token, jwt: nil)), .badCertificateEnvironment)
        }
    }

    @Test func topicOutsideTheCertificateIsDisallowedAndLocationIsTokenOnly() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken(environment: .sandbox)
            let (client, c) = try await emu.connect(.sandbox, certificate: Self.sandboxCert, key: Self.sandboxKey)
            defer { client.shutdown() }
            expectRejection(try await c.send(emu.push(to: token, environment: .sandbox, jwt: nil, topic: "com.other.app")),
                            .topicDisallowed)
            expectRejection(try await c.send(emu.push(to: token, environment: .sandbox, jwt: nil,
                                                      topic: "com.example.app.location-query",
                                                      headers: [H2Header("apns-push-type", "location")])), .invalidPushType)
        }
    }

    @Test func certificateFromAnUntrustedIssuerIsBadCertificate() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let (certPath, keyPath) = try writeProductionClientCertificate(in: folder.url, issuer: nil)
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let (client, c) = try await emu.connect(.production, certificate: certPath, key: keyPath)
            defer { client.shutdown() }
            expectRejection(try await c.send(emu.push(to: token, jwt: nil)), .badCertificate)
        }
    }
}

@Suite("Single-topic certificates")
struct SingleTopicCertificateTests {
    @Test func singleTopicCertificateDefaultsTheTopicToItsBundleId() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        // Issued by the bundled CA, with no topics extension.
        let caKey = try PrivateKey(pem: String(contentsOfFile: bundledCertificates + "/ca-key.pem", encoding: .utf8))
        let ca = try Certificate(pem: String(contentsOfFile: bundledCertificates + "/ca.pem", encoding: .utf8))
        let (certPath, keyPath) = try writeProductionClientCertificate(in: folder.url, issuer: (ca, caKey))
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let (client, c) = try await emu.connect(.production, certificate: certPath, key: keyPath)
            defer { client.shutdown() }
            let r = try await c.send(emu.push(to: token, jwt: nil, topic: nil))
            #expect(r.status == 200, "\(r.bodyText)")
            #expect(emu.services.journal.query(JournalFilter(token: token)).first?.topic == "com.example.app")
        }
    }
}

/// A folder under the temp directory, removed when the value goes away.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Writes a production push certificate for com.example.app with no topics extension (single-topic), signed
/// by `issuer` or self-signed, and its key; returns the two PEM paths.
func writeProductionClientCertificate(in folder: URL, issuer: (Certificate, PrivateKey)?) throws -> (String, String) {
    let key = try PrivateKey.generateP256()
    var builder = CertificateBuilder(subject: [.commonName("Apple Push Services: com.example.app"), .userID("com.example.app")],
                                     notBefore: Date().addingTimeInterval(-3600), notAfter: Date().addingTimeInterval(86400))
    builder.extendedKeyUsage = [.clientAuth]
    builder.customExtensions = [CertificateExtension(oid: ApplePushCertificateExtensions.productionOID, isCritical: false,
                                                     value: DER.null)]
    let cert = try issuer.map { try builder.issued(for: key.publicKey, by: $0.0, issuerKey: $0.1) } ?? builder.selfSigned(key: key)
    let certPath = folder.appendingPathComponent("c.pem").path
    let keyPath = folder.appendingPathComponent("k.pem").path
    try cert.pem.write(toFile: certPath, atomically: true, encoding: .utf8)
    try key.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
    return (certPath, keyPath)
}
