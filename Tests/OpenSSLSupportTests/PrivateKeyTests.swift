import Foundation
import Testing
@testable import OpenSSLSupport

@Suite struct PrivateKeyTests {
    /// A SEC1 key as `openssl ecparam -genkey -noout` writes it (test-only key).
    static let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEINrfHj8hUnR5py9dWZV/x9SOp8X+3c3qDteOH0IREdOMoAoGCCqGSM49
        AwEHoUQDQgAEIiHLVUQnDVeMIJmJUYhKUMeC+BHAIAQOMnw+qqyZ4mH7nHVkMrxm
        y9SROoNX5OGZRYyFX9H90UvnVk+8pTaFyA==
        -----END EC PRIVATE KEY-----

        """
    static let sec1PublicPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIiHLVUQnDVeMIJmJUYhKUMeC+BHA
        IAQOMnw+qqyZ4mH7nHVkMrxmy9SROoNX5OGZRYyFX9H90UvnVk+8pTaFyA==
        -----END PUBLIC KEY-----

        """

    @Test func pkcs8PEMRoundTripKeepsTheSameKey() throws {
        let key = try PrivateKey.generateP256()
        let pem = key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let reread = try PrivateKey(pem: pem)
        #expect(reread.rawPublicKey == key.rawPublicKey)
        #expect(reread.pkcs8PEM == pem)
    }

    @Test func sec1ECPrivateKeyIsAccepted() throws {
        let key = try PrivateKey(pem: Self.sec1PEM)
        #expect(key.publicKeyPEM == Self.sec1PublicPEM)
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func rawPublicKeyIsThe65ByteUncompressedPoint() throws {
        let key = try PrivateKey(pem: Self.sec1PEM)
        let raw = key.rawPublicKey
        #expect(raw.count == 65)
        #expect(raw.prefix(3) == [0x04, 0x22, 0x21])
        #expect(raw.suffix(2) == [0x85, 0xC8])
    }

    @Test func publicKeyPEMIsSubjectPublicKeyInfo() throws {
        let key = try PrivateKey.generateP256()
        #expect(key.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        let publicKey = try PublicKey(pem: key.publicKeyPEM)
        #expect(publicKey.matches(key.publicKey))
    }

    @Test func generatedKeysDiffer() throws {
        #expect(try PrivateKey.generateP256().rawPublicKey != PrivateKey.generateP256().rawPublicKey)
    }

    @Test func pemWithoutKeyThrows() {
        #expect(throws: OpenSSLError.self) { try PrivateKey(pem: Self.sec1PublicPEM) }
        #expect(throws: OpenSSLError.self) { try PrivateKey(pem: "") }
    }

    @Test
    func pkcs8PEMIsReadableByTheOpenSSLCLI() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try PrivateKey.generateP256()
        try TestSupport.write(key.pkcs8PEM, to: directory.appendingPathComponent("key.p8"))
        let result = try TestSupport.run(["openssl", "pkey", "-in", "key.p8", "-pubout"], in: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == key.publicKeyPEM)
    }
}
