import Foundation
import Testing
@testable import OpenSSLSupport

@Suite struct CertificateTests {
    @Test func pemAndDERRoundTripToTheSameCertificate() throws {
        let (ca, _) = try TestSupport.makeCA()
        #expect(ca.pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(ca.pem.hasSuffix("-----END CERTIFICATE-----\n"))
        let fromPEM = try Certificate(pem: ca.pem)
        let fromDER = try Certificate(der: ca.der)
        #expect(fromPEM == ca)
        #expect(fromDER.der == ca.der)
        #expect(fromDER.pem == ca.pem)
    }

    @Test func derWithTrailingBytesIsRejected() throws {
        let (ca, _) = try TestSupport.makeCA()
        #expect(throws: OpenSSLError.self) { try Certificate(der: ca.der + [0x00]) }
        #expect(throws: OpenSSLError.self) { try Certificate(der: Array(ca.der.dropLast())) }
    }

    @Test func chainKeepsFileOrderAndLoadChainReadsFiles() throws {
        let ca = try TestSupport.makeCA()
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: ca)
        let text = leaf.pem + ca.0.pem
        #expect(try Certificate.chain(pem: text) == [leaf, ca.0])
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("chain.pem")
        try TestSupport.write(text, to: file)
        #expect(try Certificate.loadChain(pemFile: file.path) == [leaf, ca.0])
    }

    @Test func textWithoutCertificateThrows() {
        #expect(throws: OpenSSLError.self) { try Certificate.chain(pem: "hello") }
        #expect(throws: OpenSSLError.self) { try Certificate(pem: "") }
        #expect(throws: (any Error).self) { try Certificate.loadChain(pemFile: "/nonexistent/chain.pem") }
    }

    @Test func publicKeyIsTheSubjectKey() throws {
        let ca = try TestSupport.makeCA()
        let (leaf, leafKey) = try TestSupport.makeLeaf(issuedBy: ca)
        #expect(leaf.publicKey.matches(leafKey.publicKey))
        #expect(leaf.publicKey.rawRepresentation == leafKey.rawPublicKey)
        let data = Array("signed by the leaf".utf8)
        #expect(leaf.publicKey.verifyES256(signature: try leafKey.signES256(data), data: data))
    }

    @Test func isSignedByChecksTheIssuerSignature() throws {
        let ca = try TestSupport.makeCA()
        let other = try TestSupport.makeCA()
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: ca)
        #expect(leaf.isSignedBy(ca.0))
        #expect(ca.0.isSignedBy(ca.0))
        #expect(!leaf.isSignedBy(other.0))
        #expect(!leaf.isSignedBy(leaf))
    }

    @Test func chainVerifiesToItsCAWithinValidity() throws {
        let ca = try TestSupport.makeCA()
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: ca)
        #expect(leaf.verify(chainTo: [ca.0], at: TestSupport.now))
        #expect(ca.0.verify(chainTo: [ca.0], at: TestSupport.now))
        #expect(leaf.verificationFailure(chainTo: [ca.0], at: TestSupport.now) == nil)
    }

    @Test func chainFailsAgainstAnotherCAEvenWithTheSameName() throws {
        let ca = try TestSupport.makeCA()
        let impostor = try TestSupport.makeCA()
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: ca)
        #expect(!leaf.verify(chainTo: [impostor.0], at: TestSupport.now))
        #expect(!leaf.verify(chainTo: [], at: TestSupport.now))
        #expect(leaf.verify(chainTo: [impostor.0, ca.0], at: TestSupport.now))
    }

    @Test func chainFailsWhenExpiredOrNotYetValid() throws {
        let ca = try TestSupport.makeCA()
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: ca)
        let later = TestSupport.now + 31 * TestSupport.day
        #expect(!leaf.verify(chainTo: [ca.0], at: later))
        #expect(leaf.verificationFailure(chainTo: [ca.0], at: later) == "certificate has expired")
        let earlier = TestSupport.now - 2 * TestSupport.day
        #expect(leaf.verificationFailure(chainTo: [ca.0], at: earlier) == "certificate is not yet valid")
    }

    @Test func leafIsNotATrustAnchorForAnotherLeaf() throws {
        let ca = try TestSupport.makeCA()
        let (leaf, leafKey) = try TestSupport.makeLeaf(issuedBy: ca)
        let grandchild = try TestSupport.makeLeaf(issuedBy: (leaf, leafKey), name: "grandchild").0
        // The leaf is CA:FALSE, so nothing it signs may chain, even with it as an intermediate.
        #expect(!grandchild.verify(chainTo: [ca.0], intermediates: [leaf], at: TestSupport.now))
    }

    @Test func intermediatesFillThePath() throws {
        let root = try TestSupport.makeCA(name: "Root")
        let intermediateKey = try PrivateKey.generateP256()
        var builder = CertificateBuilder(
            subject: [.commonName("Intermediate")],
            notBefore: TestSupport.now - TestSupport.day,
            notAfter: TestSupport.now + 90 * TestSupport.day
        )
        builder.basicConstraints = .certificateAuthority(pathLength: 0)
        builder.keyUsage = [.keyCertSign]
        let intermediate = try builder.issued(for: intermediateKey.publicKey, by: root.0, issuerKey: root.1)
        let (leaf, _) = try TestSupport.makeLeaf(issuedBy: (intermediate, intermediateKey))
        #expect(leaf.verify(chainTo: [root.0], intermediates: [intermediate], at: TestSupport.now))
        #expect(!leaf.verify(chainTo: [root.0], at: TestSupport.now))
    }
}
