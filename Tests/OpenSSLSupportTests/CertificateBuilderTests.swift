import Foundation
import Testing
@testable import OpenSSLSupport

@Suite struct CertificateBuilderTests {
    static let topicsOID = "1.2.840.113635.100.6.3.6"
    static let sandboxOID = "1.2.840.113635.100.6.3.1"

    /// A client certificate shaped like Apple's, issued by a fresh CA.
    static func makeClient() throws -> (leaf: Certificate, ca: Certificate, builder: CertificateBuilder) {
        let ca = try TestSupport.makeCA()
        let key = try PrivateKey.generateP256()
        var builder = CertificateBuilder(
            subject: [
                .commonName("Apple Push Services: com.example.app"), .userID("com.example.app"),
                .organizationalUnit("DEVTEAM123"), .organization("Example, Inc."), .country("US"),
            ],
            notBefore: TestSupport.now - TestSupport.day,
            notAfter: TestSupport.now + 30 * TestSupport.day
        )
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [.clientAuth]
        builder.subjectAlternativeNames = [.dns("push.example"), .ipAddress("127.0.0.1"), .ipAddress("::1")]
        builder.customExtensions = [
            CertificateExtension(oid: sandboxOID, isCritical: false, value: DER.null),
            CertificateExtension(
                oid: topicsOID,
                isCritical: false,
                value: DER.sequence(DER.utf8String("com.example.app"), DER.sequence(DER.utf8String("app")))
            ),
        ]
        return (try builder.issued(for: key.publicKey, by: ca.0, issuerKey: ca.1), ca.0, builder)
    }

    @Test func subjectKeepsOrderAndUIDIsNamedUID() throws {
        let (leaf, ca, _) = try Self.makeClient()
        #expect(leaf.subject.map(\.description) == [
            "CN=Apple Push Services: com.example.app", "UID=com.example.app", "OU=DEVTEAM123",
            "O=Example, Inc.", "C=US",
        ])
        #expect(leaf.subject[1].oid == "0.9.2342.19200300.100.1.1")
        #expect(leaf.subjectValue(shortName: "UID") == "com.example.app")
        #expect(leaf.subjectValue(shortName: "0.9.2342.19200300.100.1.1") == "com.example.app")
        #expect(leaf.subjectValue(shortName: "OU") == "DEVTEAM123")
        #expect(leaf.subjectValue(shortName: "L") == nil)
        #expect(leaf.issuer == ca.subject)
    }

    @Test func subjectAlternativeNamesRoundTripInOrder() throws {
        let (leaf, _, _) = try Self.makeClient()
        #expect(leaf.subjectAlternativeNames == ["push.example", "127.0.0.1", "::1"])
        #expect(leaf.subjectAlternativeNameEntries == [
            .dns("push.example"), .ipAddress("127.0.0.1"), .ipAddress("::1"),
        ])
    }

    @Test func customExtensionBytesAndCriticalityRoundTrip() throws {
        let (leaf, _, builder) = try Self.makeClient()
        #expect(leaf.extensionValue(oid: Self.sandboxOID) == [0x05, 0x00])
        #expect(leaf.extensionValue(oid: Self.topicsOID) == builder.customExtensions[1].value)
        #expect(leaf.extensionValue(oid: "1.2.840.113635.100.6.3.2") == nil)
        let custom = leaf.extensions.filter { $0.oid.hasPrefix("1.2.840.113635.") }
        #expect(custom == builder.customExtensions)
    }

    @Test func standardExtensionsAreWrittenWithTheirCriticality() throws {
        let (leaf, ca, _) = try Self.makeClient()
        let byOID = Dictionary(uniqueKeysWithValues: leaf.extensions.map { ($0.oid, $0) })
        // basicConstraints CA:FALSE is the empty SEQUENCE (the DEFAULT FALSE is omitted in DER).
        #expect(byOID["2.5.29.19"] == CertificateExtension(oid: "2.5.29.19", isCritical: true, value: [0x30, 0x00]))
        // keyUsage digitalSignature: BIT STRING with 7 unused bits, 0x80.
        #expect(byOID["2.5.29.15"]?.value == [0x03, 0x02, 0x07, 0x80])
        #expect(byOID["2.5.29.15"]?.isCritical == true)
        // extendedKeyUsage clientAuth: SEQUENCE { OID 1.3.6.1.5.5.7.3.2 }.
        #expect(byOID["2.5.29.37"]?.value == [0x30, 0x0A, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02])
        #expect(byOID["2.5.29.37"]?.isCritical == false)
        // The leaf's authorityKeyIdentifier is [0] the CA's subjectKeyIdentifier.
        let caKeyID = try DER.parse(try #require(ca.extensionValue(oid: "2.5.29.14"))).content
        #expect(caKeyID.count == 20)
        let authority = try DER.parse(try #require(leaf.extensionValue(oid: "2.5.29.35"))).children()
        #expect(authority.first == DER.Node(tag: 0x80, content: caKeyID))
    }

    @Test func caIsCriticalCATrueAndSelfIdentified() throws {
        let (ca, _) = try TestSupport.makeCA()
        #expect(ca.extensions.first { $0.oid == "2.5.29.19" }
            == CertificateExtension(oid: "2.5.29.19", isCritical: true, value: [0x30, 0x03, 0x01, 0x01, 0xFF]))
        let subjectKeyID = try DER.parse(try #require(ca.extensionValue(oid: "2.5.29.14"))).content
        let authority = try DER.parse(try #require(ca.extensionValue(oid: "2.5.29.35"))).children()
        #expect(authority.first?.content == subjectKeyID)
    }

    @Test func randomSerialIsPositive128BitsAndExplicitSerialIsKept() throws {
        let (ca, _) = try TestSupport.makeCA()
        #expect(ca.serialNumber.count == 16)
        #expect(ca.serialNumber[0] & 0x80 == 0 && ca.serialNumber[0] != 0)
        #expect(try TestSupport.makeCA().0.serialNumber != ca.serialNumber)
        var builder = CertificateBuilder(
            subject: [.commonName("x")], notBefore: TestSupport.now, notAfter: TestSupport.now + 60
        )
        builder.serialNumber = [0x01, 0x02, 0x03]
        #expect(try builder.selfSigned(key: PrivateKey.generateP256()).serialNumber == [0x01, 0x02, 0x03])
    }

    @Test func validityIsKeptToTheSecondIncludingAfter2049() throws {
        let notBefore = Date(timeIntervalSince1970: 1_800_000_123)
        let notAfter = Date(timeIntervalSince1970: 2_600_000_456)  // 2052: GeneralizedTime
        let certificate = try CertificateBuilder(subject: [.commonName("x")], notBefore: notBefore, notAfter: notAfter)
            .selfSigned(key: PrivateKey.generateP256())
        #expect(certificate.notBefore == notBefore)
        #expect(certificate.notAfter == notAfter)
    }

    @Test func invalidInputsThrowInsteadOfIssuing() throws {
        let key = try PrivateKey.generateP256()
        let base = CertificateBuilder(
            subject: [.commonName("x")], notBefore: TestSupport.now, notAfter: TestSupport.now + 60
        )
        var badIP = base
        badIP.subjectAlternativeNames = [.ipAddress("300.1.1.1")]
        #expect(throws: OpenSSLError.self) { try badIP.selfSigned(key: key) }
        var badOID = base
        badOID.customExtensions = [CertificateExtension(oid: "not.an.oid", isCritical: false, value: DER.null)]
        #expect(throws: OpenSSLError.self) { try badOID.selfSigned(key: key) }
        var badCountry = base
        badCountry.subject.append(.country("USA"))
        #expect(throws: OpenSSLError.self) { try badCountry.selfSigned(key: key) }
        var backwards = base
        backwards.notAfter = base.notBefore - 1
        #expect(throws: OpenSSLError.self) { try backwards.selfSigned(key: key) }
        let ca = try TestSupport.makeCA()
        #expect(throws: OpenSSLError.self) {
            try base.issued(for: key.publicKey, by: ca.0, issuerKey: try PrivateKey.generateP256())
        }
    }

    @Test
    func openSSLCLIReadsWhatWasBuilt() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (leaf, ca, _) = try Self.makeClient()
        try TestSupport.write(leaf.pem, to: directory.appendingPathComponent("leaf.pem"))
        try TestSupport.write(ca.pem, to: directory.appendingPathComponent("ca.pem"))
        let text = try TestSupport.run(["openssl", "x509", "-in", "leaf.pem", "-noout", "-text"], in: directory)
        #expect(text.status == 0, "\(text.output)")
        #expect(text.output.contains("Version: 3 (0x2)"))
        #expect(text.output.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.output.contains("X509v3 Basic Constraints: critical"))
        #expect(text.output.contains("TLS Web Client Authentication"))
        #expect(text.output.contains("DNS:push.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"))
        let attime = "\(Int(TestSupport.now.timeIntervalSince1970))"
        let verify = try TestSupport.run(
            ["openssl", "verify", "-attime", attime, "-CAfile", "ca.pem", "leaf.pem"], in: directory
        )
        #expect(verify.status == 0, "\(verify.output)")
    }
}
