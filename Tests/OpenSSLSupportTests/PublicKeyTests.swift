import Testing
@testable import OpenSSLSupport

@Suite struct PublicKeyTests {
    @Test func pemRoundTripKeepsTheSamePoint() throws {
        let key = try PrivateKey.generateP256()
        let publicKey = try PublicKey(pem: key.publicKeyPEM)
        #expect(publicKey.pem == key.publicKeyPEM)
        #expect(publicKey.rawRepresentation == key.rawPublicKey)
    }

    @Test func matchesOnlyTheSameKey() throws {
        let one = try PrivateKey.generateP256()
        let other = try PrivateKey.generateP256()
        #expect(one.publicKey.matches(try PublicKey(pem: one.publicKeyPEM)))
        #expect(!one.publicKey.matches(other.publicKey))
    }

    @Test func privateKeyPEMIsNotAPublicKey() throws {
        let key = try PrivateKey.generateP256()
        #expect(throws: OpenSSLError.self) { try PublicKey(pem: key.pkcs8PEM) }
    }
}
