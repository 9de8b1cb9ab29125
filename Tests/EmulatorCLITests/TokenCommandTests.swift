import APNsEmulator
import Foundation
import OpenSSLSupport
import Testing

@testable import EmulatorCLI

/// `token` flags: the sample key and ids by default, each overridable, `--iat` checked as an integer.
struct TokenCommandTests {
    @Test func defaultsToTheSampleKeyAndIdsAndTheCurrentTime() throws {
        let command = try parse(TokenCommand.self, [])
        #expect(command.key.keyFile == "certs/AuthKey_DEVKEY1234.p8")
        #expect(command.key.keyId == DevCertificates.sampleKeyId)
        #expect(command.key.teamId == DevCertificates.sampleTeamId)
        #expect(command.issuedAt == nil)
    }

    @Test func everyFlagIsParsedInEitherForm() throws {
        let separate = try parse(
            TokenCommand.self,
            ["--key-file", "/k.p8", "--key-id", "ABCDE12345", "--team-id", "TEAM123456", "--iat", "1700000000"]
        )
        let joined = try parse(
            TokenCommand.self,
            ["--key-file=/k.p8", "--key-id=ABCDE12345", "--team-id=TEAM123456", "--iat=1700000000"]
        )
        for command in [separate, joined] {
            #expect(command.key == ProviderKeyOptions(keyFile: "/k.p8", keyId: "ABCDE12345", teamId: "TEAM123456"))
            #expect(command.issuedAt == 1_700_000_000)
        }
    }

    @Test(arguments: ["--iat=-5", "--iat=soon", "--iat=1.5", "--iat="])
    func iatThatIsNotAWholeNumberOfSecondsIsAUsageError(argument: String) throws {
        let error = try #require(parseError(TokenCommand.self, [argument]))
        #expect(error.description == "argument 2 '\(argument)': expected an integer of at least 0")
    }

    @Test func operandsAreRejected() throws {
        let error = try #require(parseError(TokenCommand.self, ["DEVKEY1234"]))
        #expect(error.shortDescription == "UsageError.unexpectedArgument")
    }

    @Test func helpIsPinned() {
        let expected = """
            OVERVIEW: Print a provider token (JWT) signed with a .p8 key.

            Prints the compact ES256 JWT on one line, ready for an 'authorization: bearer'
            header. The defaults use the sample key from 'apns-emulator certs', which
            'serve' accepts unless started with --no-sample-key. Real APNs rejects a token
            older than an hour, so mint a fresh one per test run.

            Example:
              curl --http2 --cacert certs/ca.pem -H "authorization: bearer $(apns-emulator token)" ...

            USAGE: apns-emulator token [--key-file <path>] [--key-id <id>] [--team-id <id>] [--iat <seconds>]

            OPTIONS:
              --key-file <path>       PEM (.p8) private key the provider token is signed
                                      with. (default: certs/AuthKey_DEVKEY1234.p8)
              --key-id <id>           The key's 10-character id, sent as the token's 'kid'.
                                      (default: DEVKEY1234)
              --team-id <id>          The 10-character team id, sent as the token's 'iss'.
                                      (default: DEVTEAM123)
              --iat <seconds>         The token's 'iat' claim, in seconds since 1970; an old
                                      or future value tests the emulator's expiry checks.
                                      (default: now)
              -h, --help              Show help information.
            """
        #expect(HelpFormatter.help(for: TokenCommand.self, path: ["apns-emulator", "token"]) == expected + "\n")
    }
}

/// `token` end to end: the printed line is a JWT whose parts decode to Apple's shape and whose signature verifies.
struct TokenCommandRunTests {
    /// Writes a fresh P-256 key as a `.p8` file and returns it with its path.
    private func withKeyFile<T>(_ body: (PrivateKey, String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            let key = try PrivateKey.generateP256()
            let file = directory.appendingPathComponent("AuthKey_ABCDE12345.p8")
            try Data(key.pkcs8PEM.utf8).write(to: file)
            return try await body(key, file.path)
        }
    }

    @Test func printsOneLineWhoseTokenDecodesAndVerifies() async throws {
        try await withKeyFile { key, path in
            let result = await runCLI([
                "token", "--key-file", path, "--key-id", "ABCDE12345", "--team-id", "TEAM123456", "--iat", "1700000000",
            ])
            #expect(result.code == .success)
            #expect(result.errorOutput.isEmpty)
            #expect(result.output.hasSuffix("\n"))
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "exactly one line: \(result.output)")
            let token = try DecodedToken(String(lines[0]))
            #expect(token.header == #"{"alg":"ES256","kid":"ABCDE12345"}"#)
            #expect(token.claims == #"{"iss":"TEAM123456","iat":1700000000}"#)
            #expect(token.signature.count == 64)
            #expect(key.publicKey.verifyES256(signature: token.signature, data: token.signingInput))
        }
    }

    @Test func iatDefaultsToNow() async throws {
        try await withKeyFile { _, path in
            let before = Int64(Date().timeIntervalSince1970)
            let result = await runCLI(["token", "--key-file", path])
            let after = Int64(Date().timeIntervalSince1970)
            let token = try DecodedToken(result.output.trimmingCharacters(in: .newlines))
            let issuedAt = try #require(token.issuedAt)
            #expect((before...after).contains(issuedAt))
            #expect(token.header == #"{"alg":"ES256","kid":"DEVKEY1234"}"#)
        }
    }

    @Test func missingKeyFileExits1NamingTheFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("nope.p8").path
            let result = await runCLI(["token", "--key-file", path])
            #expect(result.code == .failure)
            #expect(result.output.isEmpty)
            #expect(
                result.errorOutput.hasPrefix("error: cannot read the key file '\(path)': "),
                "\(result.errorOutput)"
            )
        }
    }

    @Test func fileThatHoldsNoKeyExits1() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("AuthKey.p8")
            try Data("not a key\n".utf8).write(to: file)
            let result = await runCLI(["token", "--key-file", file.path])
            #expect(result.code == .failure)
            #expect(result.errorOutput.hasPrefix("error: '\(file.path)' holds no usable private key"))
        }
    }

    @Test(arguments: [("--key-id", "key id"), ("--team-id", "team id")])
    func idOfTheWrongShapeExits1WithTheRule(flag: String, role: String) async throws {
        try await withKeyFile { _, path in
            let result = await runCLI(["token", "--key-file", path, flag, "TOO-SHORT"])
            #expect(result.code == .failure)
            #expect(result.output.isEmpty)
            #expect(
                result.errorOutput
                    == "error: the \(role) 'TOO-SHORT' must be exactly 10 ASCII letters or digits, like the ids "
                    + "Apple issues\n"
            )
        }
    }

    @Test func unknownFlagExits64() async {
        let result = await runCLI(["token", "--kid", "X"])
        #expect(result.code == .usage)
        #expect(result.errorOutput.contains("argument 2 '--kid'"))
    }
}
