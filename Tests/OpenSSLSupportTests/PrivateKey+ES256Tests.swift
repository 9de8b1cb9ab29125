import Foundation
import Testing
@testable import OpenSSLSupport

@Suite struct PrivateKeyES256Tests {
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJERVZURUFNMTIzIn0".utf8)

    @Test func signatureIsRaw64BytesAndVerifies() throws {
        let key = try PrivateKey.generateP256()
        let signature = try key.signES256(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, data: message))
    }

    @Test func derEncodingOfTheSameSignatureAlsoVerifies() throws {
        let key = try PrivateKey.generateP256()
        let der = try #require(ECDSASignature.der(fromRaw: key.signES256(message)))
        #expect(der.first == 0x30)
        #expect(key.publicKey.verifyES256(signature: der, data: message))
        #expect(key.publicKey.verifyES256(signature: try key.signDER(message), data: message))
    }

    @Test func tamperedMessageFailsInBothEncodings() throws {
        let key = try PrivateKey.generateP256()
        let raw = try key.signES256(message)
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        var tampered = message
        tampered[tampered.count - 1] ^= 0x01
        #expect(!key.publicKey.verifyES256(signature: raw, data: tampered))
        #expect(!key.publicKey.verifyES256(signature: der, data: tampered))
    }

    @Test func tamperedSignatureAndOtherKeyFail() throws {
        let key = try PrivateKey.generateP256()
        var raw = try key.signES256(message)
        let otherKey = try PrivateKey.generateP256()
        #expect(!otherKey.publicKey.verifyES256(signature: raw, data: message))
        raw[40] ^= 0x80
        #expect(!key.publicKey.verifyES256(signature: raw, data: message))
        #expect(!key.publicKey.verifyES256(signature: [], data: message))
        #expect(!key.publicKey.verifyES256(signature: [0x30, 0x00], data: message))
    }

    @Test func manySignaturesAllVerifySoScalarPaddingIsRight() throws {
        // About 1 in 128 signatures has a scalar with a leading zero byte; 300 make one very likely.
        let key = try PrivateKey.generateP256()
        let publicKey = key.publicKey
        for index in 0..<300 {
            let data = Array("message \(index)".utf8)
            let signature = try key.signES256(data)
            #expect(signature.count == 64)
            #expect(publicKey.verifyES256(signature: signature, data: data), "signature \(index)")
        }
    }

    @Test
    func jwtSignedHereVerifiesInPythonCryptography() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try PrivateKey.generateP256()
        try TestSupport.write(key.publicKeyPEM, to: directory.appendingPathComponent("public.pem"))
        let header = TestSupport.base64URL(Array(#"{"alg":"ES256","kid":"DEVKEY1234"}"#.utf8))
        let claims = TestSupport.base64URL(Array(#"{"iss":"DEVTEAM123","iat":1800000000}"#.utf8))
        let signature = try key.signES256(Array("\(header).\(claims)".utf8))
        let token = "\(header).\(claims).\(TestSupport.base64URL(signature))"
        let script = """
            import sys, base64, json
            from cryptography.hazmat.primitives import serialization, hashes
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
            def b64(text): return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))
            header, claims, signature = sys.argv[2].split('.')
            raw = b64(signature)
            assert len(raw) == 64, len(raw)
            key = serialization.load_pem_public_key(open(sys.argv[1], 'rb').read())
            der = encode_dss_signature(int.from_bytes(raw[:32], 'big'), int.from_bytes(raw[32:], 'big'))
            key.verify(der, (header + '.' + claims).encode(), ec.ECDSA(hashes.SHA256()))
            print('verified', json.loads(b64(header))['kid'])
            """
        let result = try TestSupport.run(["python3", "-c", script, "public.pem", token], in: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output == "verified DEVKEY1234\n")
    }

    @Test
    func jwtSignedByPythonWithOurP8VerifiesHere() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try PrivateKey.generateP256()
        try TestSupport.write(key.pkcs8PEM, to: directory.appendingPathComponent("AuthKey.p8"))
        let script = """
            import sys, base64
            from cryptography.hazmat.primitives import serialization, hashes
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
            def b64(data): return base64.urlsafe_b64encode(data).rstrip(b'=').decode()
            key = serialization.load_pem_private_key(open(sys.argv[1], 'rb').read(), password=None)
            signing_input = b64(b'{"alg":"ES256","kid":"DEVKEY1234"}') + '.' + b64(b'{"iss":"DEVTEAM123"}')
            r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            print(signing_input + '.' + b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big')), end='')
            """
        let result = try TestSupport.run(["python3", "-c", script, "AuthKey.p8"], in: directory)
        #expect(result.status == 0, "\(result.output)")
        let parts = result.output.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let signature = try #require(TestSupport.base64URLDecode(parts[2]))
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, data: Array("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test
    func derFromOurRawSignatureVerifiesWithOpenSSLDgst() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try PrivateKey.generateP256()
        let der = try #require(ECDSASignature.der(fromRaw: key.signES256(message)))
        try TestSupport.write(key.publicKeyPEM, to: directory.appendingPathComponent("public.pem"))
        try TestSupport.write(message, to: directory.appendingPathComponent("message"))
        try TestSupport.write(der, to: directory.appendingPathComponent("signature.der"))
        let result = try TestSupport.run(
            ["openssl", "dgst", "-sha256", "-verify", "public.pem", "-signature", "signature.der", "message"],
            in: directory
        )
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Verified OK"))
    }

    @Test
    func derSignatureFromOpenSSLDgstVerifiesHere() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try PrivateKey.generateP256()
        try TestSupport.write(key.pkcs8PEM, to: directory.appendingPathComponent("key.pem"))
        try TestSupport.write(message, to: directory.appendingPathComponent("message"))
        let result = try TestSupport.run(
            ["openssl", "dgst", "-sha256", "-sign", "key.pem", "-out", "signature.der", "message"],
            in: directory
        )
        #expect(result.status == 0, "\(result.output)")
        let der = try Array(Data(contentsOf: directory.appendingPathComponent("signature.der")))
        #expect(key.publicKey.verifyES256(signature: der, data: message))
        #expect(key.publicKey.verifyES256(signature: try ECDSASignature.raw(fromDER: der), data: message))
    }
}
