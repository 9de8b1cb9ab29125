import Foundation
import OpenSSLSupport
import SpawnedProcess
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite struct DevCertificatesTests {
    typealias Files = DevCertificates.FileName

    /// A fixed moment so validity arithmetic does not depend on the wall clock.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    static let expectedServerNames = [
        "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        "api-broadcast.push.apple.com", "api-broadcast.sandbox.push.apple.com",
        "api-manage-broadcast.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com",
        "fcm.googleapis.com", "oauth2.googleapis.com", "onesignal.com", "api.onesignal.com",
        "localhost", "127.0.0.1", "::1",
    ]

    /// DER of `SEQUENCE { OID 1.3.6.1.5.5.7.3.<lastArc> }`: 1 is serverAuth, 2 is clientAuth.
    static func extendedKeyUsage(lastArc: UInt8) -> [UInt8] {
        [0x30, 0x0A, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, lastArc]
    }

    /// A fresh folder that is removed when the test ends.
    final class Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory
                .appendingPathComponent("dev-certificates-tests-\(UUID().uuidString)", isDirectory: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }

        func file(_ name: String) -> URL { url.appendingPathComponent(name) }
        func text(_ name: String) throws -> String { String(decoding: try Data(contentsOf: file(name)), as: UTF8.self) }
        func snapshot() throws -> [String: Data] {
            try Dictionary(uniqueKeysWithValues: Files.all.map { ($0, try Data(contentsOf: file($0))) })
        }
    }

    static func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func firstCallWritesTheWholeSetWithKeysPrivate() throws {
        let folder = try Folder()
        let report = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        #expect(report.written.map(\.lastPathComponent) == Files.all)
        #expect(report.kept.isEmpty)
        #expect(report.regenerationReason == "missing ca.pem")
        for name in Files.all {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.file(name).path)
            let mode = attributes[.posixPermissions] as? Int
            #expect(mode == (Files.privateKeys.contains(name) ? 0o600 : 0o644), "\(name)")
        }
        let contents = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(contents.sorted() == Files.all.sorted(), "no staging files left behind")
    }

    @Test func caAndServerChainVerifyWithTheExactHostList() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let ca = try Certificate(pem: folder.text(Files.caCertificate))
        #expect(ca.subjectValue(shortName: "CN") == "APNs Emulator Development CA")
        #expect(ca.publicKey.matches(try PrivateKey(pem: folder.text(Files.caKey)).publicKey))
        #expect(ca.notAfter.timeIntervalSince(ca.notBefore) == 3650 * Self.day)

        let chain = try Certificate.chain(pem: folder.text(Files.serverChain))
        #expect(chain.count == 2)
        #expect(chain.last == ca)
        let server = try #require(chain.first)
        #expect(server.verify(chainTo: [ca], at: Self.now))
        #expect(server.isSignedBy(ca))
        #expect(server.subjectAlternativeNames == Self.expectedServerNames)
        #expect(server.notAfter.timeIntervalSince(server.notBefore) <= 825 * Self.day)
        #expect(server.notBefore <= Self.now)
        // extendedKeyUsage = SEQUENCE { id-kp-serverAuth (1.3.6.1.5.5.7.3.1) }.
        #expect(server.extensionValue(oid: "2.5.29.37") == Self.extendedKeyUsage(lastArc: 1))
        #expect(server.publicKey.matches(try PrivateKey(pem: folder.text(Files.serverKey)).publicKey))
    }

    @Test(arguments: [
        (Files.sandboxClientCertificate, Files.sandboxClientKey, ApplePushCertificateExtensions.sandboxOID,
         ApplePushCertificateExtensions.productionOID),
        (Files.productionClientCertificate, Files.productionClientKey, ApplePushCertificateExtensions.productionOID,
         ApplePushCertificateExtensions.sandboxOID),
    ])
    func clientCertificateLooksLikeApplesWithOneEnvironment(
        certificateFile: String, keyFile: String, environmentOID: String, otherOID: String
    ) throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let ca = try Certificate(pem: folder.text(Files.caCertificate))
        let client = try Certificate(pem: folder.text(certificateFile))
        #expect(client.verify(chainTo: [ca], at: Self.now))
        #expect(client.publicKey.matches(try PrivateKey(pem: folder.text(keyFile)).publicKey))
        #expect(client.subject.map(\.description) == [
            "CN=Apple Push Services: com.example.app", "UID=com.example.app", "OU=DEVTEAM123",
            "O=APNs Emulator Sample", "C=US",
        ])
        #expect(client.extensionValue(oid: environmentOID) == [0x05, 0x00])
        #expect(client.extensionValue(oid: otherOID) == nil)
        let topics = try ApplePushCertificateExtensions.decodeTopics(
            try #require(client.extensionValue(oid: ApplePushCertificateExtensions.topicsOID))
        )
        #expect(topics.map(\.name) == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        #expect(topics.map(\.kinds) == [["app"], ["voip"], ["complication"]])
        // extendedKeyUsage = SEQUENCE { id-kp-clientAuth (1.3.6.1.5.5.7.3.2) }.
        #expect(client.extensionValue(oid: "2.5.29.37") == Self.extendedKeyUsage(lastArc: 2))
    }

    @Test func authKeyIsAnES256PKCS8KeyNamedForTheSampleKeyId() throws {
        #expect(DevCertificates.sampleKeyId.count == 10)
        #expect(DevCertificates.sampleTeamId.count == 10)
        #expect(Files.authKey == "AuthKey_DEVKEY1234.p8")
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let pem = try folder.text(Files.authKey)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let key = try PrivateKey(pem: pem)
        let data = Array("header.claims".utf8)
        #expect(key.publicKey.verifyES256(signature: try key.signES256(data), data: data))
    }

    @Test
    func opensslVerifyAcceptsServerAndClientCertificates() throws {
        let folder = try Folder()
        // The CLI checks validity against the wall clock, so this set starts now.
        _ = try DevCertificates.ensure(in: folder.url, force: false)
        let checks = [
            ("sslserver", Files.serverChain), ("sslclient", Files.sandboxClientCertificate),
            ("sslclient", Files.productionClientCertificate),
        ]
        for (purpose, file) in checks {
            let result = try Self.run(
                ["openssl", "verify", "-CAfile", Files.caCertificate, "-purpose", purpose, file], in: folder.url
            )
            #expect(result.status == 0, "\(file): \(result.output)")
            #expect(result.output == "\(file): OK\n")
        }
        let hostCheck = try Self.run(
            ["openssl", "verify", "-CAfile", Files.caCertificate, "-verify_hostname", "api.sandbox.push.apple.com",
             "-verify_ip", "::1", Files.serverChain],
            in: folder.url
        )
        #expect(hostCheck.status == 0, "\(hostCheck.output)")
    }

    @Test func secondCallWithoutForceKeepsByteIdenticalFiles() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let before = try folder.snapshot()
        let report = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now + 100 * Self.day)
        #expect(report.written.isEmpty)
        #expect(report.kept.map(\.lastPathComponent) == Files.all)
        #expect(report.regenerationReason == nil)
        #expect(try folder.snapshot() == before)
    }

    @Test func aServerCertificateWithOlderHostNamesIsReissuedUnderTheSameCA() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let before = try folder.snapshot()
        // The server certificate an older version made: the same CA, fewer names.
        let ca = try Certificate(pem: folder.text(Files.caCertificate))
        let caKey = try PrivateKey(pem: folder.text(Files.caKey))
        let key = try PrivateKey.generateP256()
        var builder = CertificateBuilder(subject: [.commonName("api.push.apple.com")], notBefore: Self.now - 3600,
                                         notAfter: Self.now + 800 * Self.day)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [.serverAuth]
        builder.subjectAlternativeNames = [.dns("api.push.apple.com"), .dns("localhost")]
        let old = try builder.issued(for: key.publicKey, by: ca, issuerKey: caKey)
        try Data((old.pem + ca.pem).utf8).write(to: folder.file(Files.serverChain))
        try Data(key.pkcs8PEM.utf8).write(to: folder.file(Files.serverKey))
        #expect(DevCertificates.problem(withSetIn: folder.url, at: Self.now) == DevCertificates.outdatedServerNames)

        let report = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        #expect(Set(report.written.map(\.lastPathComponent)) == [Files.serverChain, Files.serverKey])
        #expect(report.regenerationReason == nil)
        let after = try folder.snapshot()
        for name in Files.all where name != Files.serverChain && name != Files.serverKey {
            #expect(after[name] == before[name], "\(name) changed: clients trusting the CA would break")
        }
        #expect(DevCertificates.problem(withSetIn: folder.url, at: Self.now) == nil)
    }

    @Test func forceRewritesEveryFile() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let before = try folder.snapshot()
        let report = try DevCertificates.ensure(in: folder.url, force: true, now: Self.now)
        #expect(report.written.map(\.lastPathComponent) == Files.all)
        #expect(report.regenerationReason == "forced")
        let after = try folder.snapshot()
        for name in Files.all {
            #expect(after[name] != before[name], "\(name) was not rewritten")
        }
        #expect(DevCertificates.problem(withSetIn: folder.url, at: Self.now) == nil)
    }

    @Test(arguments: Files.all)
    func deletingOneFileRegeneratesAConsistentSet(deleted: String) throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let oldCA = try folder.text(Files.caCertificate)
        try FileManager.default.removeItem(at: folder.file(deleted))
        let report = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        #expect(report.regenerationReason == "missing \(deleted)")
        #expect(report.written.count == Files.all.count)
        #expect(try folder.text(Files.caCertificate) != oldCA)
        #expect(DevCertificates.problem(withSetIn: folder.url, at: Self.now) == nil)
    }

    @Test func corruptFileRegeneratesTheSet() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        try Data("not a certificate".utf8).write(to: folder.file(Files.sandboxClientCertificate))
        let report = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        #expect(report.regenerationReason?.hasPrefix("unreadable set") == true)
        #expect(DevCertificates.problem(withSetIn: folder.url, at: Self.now) == nil)
    }

    @Test func keyFromAnotherSetIsDetectedAsAMismatch() throws {
        let one = try Folder()
        let other = try Folder()
        _ = try DevCertificates.ensure(in: one.url, force: false, now: Self.now)
        _ = try DevCertificates.ensure(in: other.url, force: false, now: Self.now)
        try Data(contentsOf: other.file(Files.serverKey)).write(to: one.file(Files.serverKey))
        #expect(DevCertificates.problem(withSetIn: one.url, at: Self.now) == "server.pem does not match its key")
        try Data(contentsOf: other.file(Files.caCertificate)).write(to: one.file(Files.caCertificate))
        let problem = DevCertificates.problem(withSetIn: one.url, at: Self.now)
        #expect(problem?.hasPrefix("ca.pem does not match its key") == true)
    }

    @Test func setCloseToExpiryIsRenewed() throws {
        let folder = try Folder()
        _ = try DevCertificates.ensure(in: folder.url, force: false, now: Self.now)
        let later = Self.now + 800 * Self.day
        let report = try DevCertificates.ensure(in: folder.url, force: false, now: later)
        #expect(report.regenerationReason == "server.pem expires within 30 days")
        #expect(try Certificate(pem: folder.text(Files.caCertificate)).notBefore > Self.now)
        #expect(DevCertificates.problem(withSetIn: folder.url, at: later) == nil)
    }
}
