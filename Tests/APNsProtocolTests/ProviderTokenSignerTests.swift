import APNsProtocol
import Foundation
import OpenSSLSupport
import SpawnedProcess
import Testing

/// Tokens minted by `ProviderTokenSigner` have Apple's exact shape and a signature any ES256 verifier accepts.
struct ProviderTokenSignerTests {
    private static let keyId = "ABC123DEFG"
    private static let teamId = "DEF123GHIJ"

    private func mint(_ key: PrivateKey, issuedAt: Int64 = 1_700_000_000) throws -> String {
        try ProviderTokenSigner.makeToken(privateKey: key, keyId: Self.keyId, teamId: Self.teamId, issuedAt: issuedAt)
    }

    @Test func tokenIsThreeUnpaddedBase64URLSegments() throws {
        let token = try mint(try PrivateKey.generateP256())
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments.count == 3)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for segment in segments {
            #expect(!segment.isEmpty)
            #expect(segment.allSatisfy(alphabet.contains), "\(segment)")
        }
    }

    @Test func headerAndClaimsAreAppleExactJSON() throws {
        let token = try mint(try PrivateKey.generateP256(), issuedAt: 1_700_000_123)
        let segments = token.split(separator: ".").map(String.init)
        #expect(try decodeText(segments[0]) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(try decodeText(segments[1]) == #"{"iss":"DEF123GHIJ","iat":1700000123}"#)
    }

    @Test func signatureIsRawRSOverTheSigningInputAndVerifies() throws {
        let key = try PrivateKey.generateP256()
        let token = try mint(key)
        let segments = token.split(separator: ".").map(String.init)
        let signature = try decode(segments[2])
        #expect(signature.count == 64, "JOSE raw r||s, not DER")
        let signingInput = Array("\(segments[0]).\(segments[1])".utf8)
        #expect(key.publicKey.verifyES256(signature: signature, data: signingInput))
    }

    @Test func alteredClaimsOrAnotherKeyFailVerification() throws {
        let key = try PrivateKey.generateP256()
        let segments = try mint(key).split(separator: ".").map(String.init)
        let signature = try decode(segments[2])
        let forgedClaims = ProviderTokenSigner.base64URL(Array(#"{"iss":"DEF123GHIJ","iat":1700000001}"#.utf8))
        #expect(!key.publicKey.verifyES256(signature: signature, data: Array("\(segments[0]).\(forgedClaims)".utf8)))
        let other = try PrivateKey.generateP256()
        #expect(!other.publicKey.verifyES256(signature: signature, data: Array("\(segments[0]).\(segments[1])".utf8)))
    }

    @Test func freshSignaturesDifferButBothVerify() throws {
        // ECDSA is randomized: two tokens for the same claims must differ only in the signature.
        let key = try PrivateKey.generateP256()
        let first = try mint(key).split(separator: ".").map(String.init)
        let second = try mint(key).split(separator: ".").map(String.init)
        #expect(first[0...1] == second[0...1])
        #expect(first[2] != second[2])
    }

    @Test(arguments: [
        ("SHORT", DEF.team), ("ABC123DEFGH", DEF.team), ("ABC\"23DEFG", DEF.team), ("ABC 23DEFG", DEF.team),
        (DEF.key, ""), (DEF.key, "DEF123GHI"), (DEF.key, "DEF123GHÏJ"),
    ])
    func identifiersThatAreNotTenASCIIAlphanumericsAreRefused(keyId: String, teamId: String) throws {
        let key = try PrivateKey.generateP256()
        do {
            _ = try ProviderTokenSigner.makeToken(privateKey: key, keyId: keyId, teamId: teamId, issuedAt: 0)
            Issue.record("expected \(keyId)/\(teamId) to be refused")
        } catch let error as ProviderTokenSigner.SigningError {
            #expect(error.isKind(of: .badIdentifier))
            #expect(error.shortDescription == "SigningError.badIdentifier")
            #expect(error.description.contains(keyId == DEF.key ? "team id '\(teamId)'" : "key id '\(keyId)'"))
        }
    }

    @Test func lowercaseIdentifiersAreAccepted() throws {
        let token = try ProviderTokenSigner.makeToken(
            privateKey: try PrivateKey.generateP256(), keyId: "abc123defg", teamId: "def123ghij", issuedAt: 5)
        #expect(try decodeText(String(token.split(separator: ".")[1])) == #"{"iss":"def123ghij","iat":5}"#)
    }

    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64URLMatchesRFC4648VectorsWithoutPadding(input: String, expected: String) {
        #expect(ProviderTokenSigner.base64URL(Array(input.utf8)) == expected)
    }

    @Test func base64URLUsesTheURLSafeAlphabet() {
        #expect(ProviderTokenSigner.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    /// An independent implementation (pyca/cryptography) accepts the token, so we are not only agreeing with
    /// ourselves.
    @Test(.enabled(if: PythonCryptography.isAvailable, "python3 with the 'cryptography' package"))
    func pythonCryptographyVerifiesTheToken() throws {
        let key = try PrivateKey.generateP256()
        let token = try mint(key)
        let result = try PythonCryptography.verify(token: token, publicKeyPEM: key.publicKeyPEM)
        #expect(result == "ok ES256 ABC123DEFG DEF123GHIJ 1700000000", "\(result)")
    }

    private func decode(_ segment: String) throws -> [UInt8] {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Array(try #require(Data(base64Encoded: base64), "not base64url: \(segment)"))
    }

    private func decodeText(_ segment: String) throws -> String {
        String(decoding: try decode(segment), as: UTF8.self)
    }
}

/// Default ids for the argument table (a nested type keeps the table readable).
private enum DEF {
    static let key = "ABC123DEFG"
    static let team = "DEF123GHIJ"
}

/// Runs a short python3 script that verifies a token with pyca/cryptography.
enum PythonCryptography {
    static let python = "/usr/bin/python3"

    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(["-c", "import cryptography"], input: "")) != nil
    }()

    /// Verifies `token` against the PEM public key and prints `ok <alg> <kid> <iss> <iat>`, or raises.
    static let script = #"""
        import base64, json, sys
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

        pem, token = sys.stdin.read().split("\n--\n")
        def b64(s):
            assert "=" not in s
            return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        h, c, s = token.strip().split(".")
        header, claims, sig = json.loads(b64(h)), json.loads(b64(c)), b64(s)
        assert len(sig) == 64
        der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
        key = serialization.load_pem_public_key(pem.encode())
        key.verify(der, (h + "." + c).encode(), ec.ECDSA(hashes.SHA256()))
        assert isinstance(claims["iat"], int)
        print("ok", header["alg"], header["kid"], claims["iss"], claims["iat"])
        """#

    static func verify(token: String, publicKeyPEM: String) throws -> String {
        try run(["-c", script], input: publicKeyPEM + "\n--\n" + token)
    }

    /// Runs python3; throws with stderr when it exits non-zero.
    @discardableResult
    static func run(_ arguments: [String], input: String) throws -> String {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PythonFailure(message: String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct PythonFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { "python3 failed: \(message)" }
    }
}
