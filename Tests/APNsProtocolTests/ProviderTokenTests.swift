import APNsProtocol
import Foundation
import OpenSSLSupport
import Testing

@Suite struct ProviderTokenTests {
    func b64(_ s: String) -> String { ProviderTokenSigner.base64URL(Array(s.utf8)) }

    /// A token with hand-written header and claims, signed by `key` (raw r‖s) unless `signature` is given.
    func handMade(header: String, claims: String, key: PrivateKey, signature: [UInt8]? = nil) throws -> String {
        let input = b64(header) + "." + b64(claims)
        let sig = try signature ?? key.signES256(Array(input.utf8))
        return input + "." + ProviderTokenSigner.base64URL(sig)
    }

    @Test(arguments: [#"1767225600"#, #"1767225600.75"#, #""1767225600""#])
    func issuedAtMayBeIntegerFloatOrNumericString(_ iat: String) throws {
        let key = try PrivateKey.generateP256()
        let text = try handMade(header: #"{"alg":"ES256","kid":"KEY0000001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#, key: key)
        let token = try ProviderToken(compact: text.utf8)
        #expect(token.issuedAt == 1_767_225_600)
        #expect(token.keyId == "KEY0000001" && token.teamId == "TEAM000001")
        #expect(token.verifySignature(with: key.publicKey, acceptDER: false))
    }

    /// Found by the provider-token fuzz target: `1725E90` trapped converting to Int64, which took the server down.
    @Test(arguments: [#"1725E90"#, #"-1e300"#, #""9.3e18""#, #""1e999""#])
    func anIssuedAtPastInt64IsRefusedNotATrap(_ iat: String) throws {
        let key = try PrivateKey.generateP256()
        let text = try handMade(header: #"{"alg":"ES256","kid":"KEY0000001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#, key: key)
        #expect(throws: ProviderToken.ParseError.missingIssuedAt) { try ProviderToken(compact: text.utf8) }
    }

    @Test func otherAlgorithmsAndMalformedTokensAreRefused() throws {
        let key = try PrivateKey.generateP256()
        #expect(throws: ProviderToken.ParseError.algorithmNotES256("none")) {
            try ProviderToken(compact: try handMade(header: #"{"alg":"none","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#, key: key).utf8)
        }
        #expect(throws: ProviderToken.ParseError.algorithmNotES256("HS256")) {
            try ProviderToken(compact: try handMade(header: #"{"alg":"HS256","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#, key: key).utf8)
        }
        #expect(throws: ProviderToken.ParseError.missingIssuedAt) {
            try ProviderToken(compact: try handMade(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":true}"#, key: key).utf8)
        }
        #expect(throws: ProviderToken.ParseError.notThreeParts) { try ProviderToken(compact: "a.b".utf8) }
        #expect(throws: ProviderToken.ParseError.badBase64) { try ProviderToken(compact: "a=.b.c".utf8) }
    }

    @Test func derSignaturesAsJavaSignsThemAreAcceptedWhenAllowed() throws {
        let key = try PrivateKey.generateP256()
        let header = #"{"alg":"ES256","kid":"KEY0000001"}"#, claims = #"{"iss":"TEAM000001","iat":1}"#
        let raw = try key.signES256(Array((b64(header) + "." + b64(claims)).utf8))
        let der = Self.derFromRaw(raw)
        let token = try ProviderToken(compact: try handMade(header: header, claims: claims, key: key, signature: der).utf8)
        #expect(token.verifySignature(with: key.publicKey, acceptDER: true))
        #expect(!token.verifySignature(with: key.publicKey, acceptDER: false))
    }

    @Test func tamperedClaimsFailTheSignature() throws {
        let key = try PrivateKey.generateP256()
        let good = try ProviderTokenSigner.makeToken(privateKey: key, keyId: "KEY0000001", teamId: "TEAM000001", issuedAt: 1)
        let parts = good.split(separator: ".")
        let forged = "\(parts[0]).\(b64(#"{"iss":"TEAM000002","iat":1}"#)).\(parts[2])"
        #expect(!(try ProviderToken(compact: forged.utf8)).verifySignature(with: key.publicKey, acceptDER: true))
        let other = try PrivateKey.generateP256()
        #expect(!(try ProviderToken(compact: good.utf8)).verifySignature(with: other.publicKey, acceptDER: true))
    }

    /// DER SEQUENCE { INTEGER r, INTEGER s } from JOSE r‖s.
    static func derFromRaw(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var b = Array(bytes.drop { $0 == 0 })
            if b.isEmpty { b = [0] }
            if b[0] & 0x80 != 0 { b.insert(0, at: 0) }
            return [0x02, UInt8(b.count)] + b
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30, UInt8(body.count)] + body
    }
}

@Suite struct ProviderTokenVerifierTests {
    @Test func aFailedVerdictIsForgottenWhenTheRightKeyIsRegistered() throws {
        let right = try TestKey(keyId: "KEY0000001")
        let wrong = try TestKey(keyId: "KEY0000001")
        let lookups = MemoryLookups()
        lookups.add(wrong.record)
        let verifier = ProviderTokenVerifier()
        let jwt = try right.token(issuedAt: 1)
        guard case .invalid = verifier.verify(jwt, keys: lookups, acceptDER: true) else {
            Issue.record("a token signed by another key must not verify")
            return
        }
        lookups.add(right.record)
        guard case .valid(let token, let key) = verifier.verify(jwt, keys: lookups, acceptDER: true) else {
            Issue.record("the registered key must now verify the token")
            return
        }
        #expect(token.keyId == "KEY0000001" && key === right.record)
        // And a good verdict is forgotten when the key is replaced by another.
        lookups.add(wrong.record)
        guard case .invalid = verifier.verify(jwt, keys: lookups, acceptDER: true) else {
            Issue.record("the replaced key must no longer verify the token")
            return
        }
    }
}
