import APNsEmulator
import Foundation
import H2Transport
import Testing

@testable import EmulatorCLI

/// `send` flags: where it connects, which credentials it uses, and exactly which headers it puts on the wire.
struct SendCommandTests {
    private func send(_ arguments: [String]) throws -> SendCommand {
        try parse(SendCommand.self, ["--device-token", "00ff"] + arguments)
    }

    /// The request's fields as (name, value) pairs, pseudo-headers included, in wire order.
    private func fields(_ request: H2Request) -> [H2Header] {
        Array(request.headers)
    }

    @Test func defaultsToTheProductionListenerWithASampleKeyTokenAndAHelloAlert() throws {
        let command = try send([])
        #expect(
            command.target
                == SendCommand.Target(host: "127.0.0.1", port: 2197, serverName: "api.push.apple.com")
        )
        #expect(command.target.authority == "api.push.apple.com:2197")
        #expect(command.caFile == "certs/ca.pem")
        #expect(command.clientIdentity == nil)
        #expect(command.authorization == .mint(ProviderKeyOptions()))
        #expect(command.deviceToken == "00ff")
        #expect(command.headers.isEmpty)
        #expect(command.payload == .text(#"{"aps":{"alert":"Hello from apns-emulator"}}"#))
        #expect(command.json == false)
    }

    @Test func sandboxSwitchesPortAndServerName() throws {
        let command = try send(["--sandbox"])
        #expect(command.target.port == 2198)
        #expect(command.target.serverName == "api.sandbox.push.apple.com")
    }

    @Test func urlSetsHostAndPortWhileSandboxStillPicksTheServerName() throws {
        let command = try send(["--sandbox", "--url", "https://127.0.0.1:9443"])
        #expect(
            command.target
                == SendCommand.Target(host: "127.0.0.1", port: 9443, serverName: "api.sandbox.push.apple.com")
        )
    }

    @Test func serverNameOverridesBothDefaults() throws {
        let command = try send(["--sandbox", "--server-name", "api.development.push.apple.com"])
        #expect(command.target.serverName == "api.development.push.apple.com")
    }

    @Test func bracketedIPv6AndDefaultPortAreUnderstood() throws {
        #expect(try send(["--url", "https://[::1]:2197"]).target.host == "::1")
        let noPort = try send(["--url", "https://localhost"]).target
        #expect(noPort.port == 443)
        #expect(noPort.authority == "api.push.apple.com", "no :443 in :authority, as curl sends it")
    }

    @Test(arguments: [
        "http://127.0.0.1:2197", "127.0.0.1:2197", "https://127.0.0.1:2197/3/device/00", "https://127.0.0.1:0",
        "https://127.0.0.1:2197?x=1", "https://",
    ])
    func urlThatIsNotHTTPSHostPortIsAUsageError(url: String) throws {
        let error = try #require(parseError(SendCommand.self, ["--device-token", "00", "--url", url]))
        #expect(error.description == "argument 4 '--url \(url)': expected a URL of the form https://HOST:PORT")
    }

    @Test func missingDeviceTokenIsAUsageError() throws {
        let error = try #require(parseError(SendCommand.self, ["--topic", "com.example.app"]))
        #expect(error.shortDescription == "UsageError.missingOption")
        #expect(error.description == "missing required option '--device-token <hex>'")
    }

    @Test func apnsFlagsBecomeHeadersInAFixedOrderAndValuesAreNotChecked() throws {
        let command = try send([
            "--apns-id=", "--collapse-id", "c", "--expiration", "soon", "--priority", "7", "--push-type", "alert",
            "--topic", "com.example.app",
        ])
        #expect(
            command.headers == [
                H2Header("apns-topic", "com.example.app"), H2Header("apns-push-type", "alert"),
                H2Header("apns-priority", "7"), H2Header("apns-expiration", "soon"),
                H2Header("apns-collapse-id", "c"), H2Header("apns-id", ""),
            ]
        )
    }

    @Test func repeatedHeaderFlagsAreAllSentInOrderAfterTheAPNsFlags() throws {
        let command = try send([
            "-H", "apns-topic: b", "--topic", "a", "--header=X-Trace:  42 ", "-Hapns-topic:c",
        ])
        #expect(
            command.headers == [
                H2Header("apns-topic", "a"), H2Header("apns-topic", "b"), H2Header("x-trace", "42"),
                H2Header("apns-topic", "c"),
            ]
        )
    }

    @Test(arguments: ["no colon", ": value", "two words: x"])
    func headerThatIsNotNameColonValueIsAUsageError(header: String) throws {
        let error = try #require(parseError(SendCommand.self, ["--device-token", "00", "-H", header]))
        #expect(error.description == "argument 4 '-H \(header)': expected a header as 'name: value'")
    }

    @Test func requestCarriesPseudoHeadersThenTokenThenEveryHeaderWithDuplicates() throws {
        let command = try send(["--topic", "a", "-H", "apns-topic: b", "--url", "https://127.0.0.1:4443"])
        let request = command.makeRequest(bearerToken: "T.O.K", body: Array("{}".utf8))
        #expect(
            fields(request) == [
                H2Header(":method", "POST"), H2Header(":scheme", "https"),
                H2Header(":authority", "api.push.apple.com:4443"), H2Header(":path", "/3/device/00ff"),
                H2Header("authorization", "bearer T.O.K"), H2Header("apns-topic", "a"), H2Header("apns-topic", "b"),
            ]
        )
        #expect(request.headers.values("apns-topic") == ["a", "b"])
        #expect(request.body == Array("{}".utf8))
    }

    @Test func requestWithoutATokenHasNoAuthorizationHeader() throws {
        let request = try send(["--no-auth"]).makeRequest(bearerToken: nil, body: [])
        #expect(request.headers["authorization"] == nil)
        #expect(request.body.isEmpty)
    }

    @Test func jwtIsSentAsGiven() throws {
        #expect(try send(["--jwt", "a.b.c"]).authorization == .token("a.b.c"))
    }

    @Test func keyFlagsMintWithTheRestDefaulted() throws {
        let command = try send(["--key-id", "ABCDE12345"])
        #expect(command.authorization == .mint(ProviderKeyOptions(keyId: "ABCDE12345")))
    }

    @Test func certificateAloneMeansCertificateAuthenticationWithoutAToken() throws {
        let command = try send(["--cert", "c.pem", "--key", "k.pem"])
        #expect(command.clientIdentity == SendCommand.ClientIdentity(certificateFile: "c.pem", keyFile: "k.pem"))
        #expect(command.authorization == .none)
    }

    @Test func certificateWithKeyFlagsSendsBoth() throws {
        let command = try send(["--cert", "c.pem", "--key", "k.pem", "--team-id", "TEAM123456"])
        #expect(command.clientIdentity != nil)
        #expect(command.authorization == .mint(ProviderKeyOptions(teamId: "TEAM123456")))
    }

    @Test func noAuthSendsNothing() throws {
        let command = try send(["--no-auth"])
        #expect(command.authorization == .none)
        #expect(command.clientIdentity == nil)
    }

    private static let noAuthConflict = "'--no-auth' sends no credentials, so it cannot be combined with "

    @Test(arguments: [
        (["--no-auth", "--jwt", "x"], noAuthConflict + "'--jwt'", 5),
        (["--key-file", "k", "--no-auth"], noAuthConflict + "'--key-file'", 6),
        (["--no-auth", "--cert", "c", "--key", "k"], noAuthConflict + "'--cert'", 5),
        (
            ["--jwt=x", "--team-id", "T"],
            "'--jwt' sends a ready-made token, so '--team-id' (for minting one) has no effect; pass one or the other",
            5
        ),
        (["--cert", "c"], "'--cert' needs '--key' with the certificate's private key", 4),
        (["--key", "k"], "'--key' needs '--cert' with the client certificate", 4),
    ])
    func contradictoryCredentialsAreAUsageErrorBlamingTheLaterFlag(
        arguments: [String],
        message: String,
        blamedIndex: Int
    ) throws {
        let error = try #require(parseError(SendCommand.self, ["--device-token", "00"] + arguments))
        #expect(error.shortDescription == "UsageError.invalidCombination")
        #expect(error.message == message)
        #expect(error.argument?.index == blamedIndex)
    }

    @Test func payloadIsTextOrAFileAndMayBeEmpty() throws {
        #expect(try send(["--payload", "@push.json"]).payload == .file("push.json"))
        #expect(try send(["--payload", "@-"]).payload == .file("-"))
        #expect(try send(["--payload=[1]"]).payload == .text("[1]"))
        #expect(try send(["--payload="]).payload == .text(""))
        let error = try #require(parseError(SendCommand.self, ["--device-token", "00", "--payload", "@"]))
        #expect(error.description == "argument 4 '--payload @': expected a file name after '@'")
    }

    @Test func payloadFileIsReadWhenSending() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("push.json")
            try Data(#"{"aps":{"badge":1}}"#.utf8).write(to: file)
            #expect(try send(["--payload", "@\(file.path)"]).payload.bytes() == Array(#"{"aps":{"badge":1}}"#.utf8))
            #expect(throws: CommandFailure.self) {
                try send(["--payload", "@\(directory.appendingPathComponent("missing.json").path)"]).payload.bytes()
            }
        }
    }

    @Test func numericHostsPassThroughAndLocalhostResolves() throws {
        #expect(try SendCommand.numericAddress(for: "127.0.0.1") == "127.0.0.1")
        #expect(try SendCommand.numericAddress(for: "::1") == "::1")
        #expect(try SendCommand.numericAddress(for: "localhost") == "localhost")
        #expect(throws: CommandFailure.self) { try SendCommand.numericAddress(for: "no-such-host.invalid") }
    }

    @Test func helpIsPinned() {
        let expected = """
            OVERVIEW: Send one push notification and print the response.

            Connects to the emulator (or any APNs-compatible server) over HTTP/2 with TLS,
            POSTs to /3/device/<device token>, and prints 'status', 'reason', 'apns-id',
            'apns-unique-id' and 'timestamp' as 'key: value' lines (those the response
            carries), or one JSON object with --json. Exits 0 for status 200 and 1
            otherwise, or when the connection fails.

            Authentication defaults to a provider token minted from the sample key; --jwt
            sends a given token, --cert/--key use certificate authentication instead, and
            --no-auth sends no credentials. Header values are sent unchecked and -H may
            repeat a header, so rejections can be provoked on purpose.

            Examples:
              apns-emulator send --device-token 0123abcd --topic com.example.app
              apns-emulator send --sandbox --device-token 0123abcd --topic com.example.app --payload @push.json
              apns-emulator send --device-token 0123abcd -H 'apns-topic: a' -H 'apns-topic: b' --json

            USAGE: apns-emulator send [<options>]

            OPTIONS:
              --url <url>             Server to connect to, as https://HOST:PORT; a host
                                      name is resolved, the path is always
                                      /3/device/<token>. (default: https://127.0.0.1:2197,
                                      or :2198 with --sandbox)
              --sandbox               Talk to the sandbox environment: port 2198 (unless
                                      --url says otherwise) and server name
                                      api.sandbox.push.apple.com.
              --control <url>         The emulator's control API (else
                                      $APNS_EMULATOR_CONTROL_URL): with neither --sandbox
                                      nor --url, the token's environment is looked up there
                                      and the push goes to that listener.
                                      (default: http://127.0.0.1:8765)
              --control-token <token>
                                      Bearer token for --control's lookup (else
                                      $APNS_EMULATOR_CONTROL_TOKEN).
              --server-name <name>    Name sent in SNI and :authority and verified in the
                                      server certificate; it selects the environment.
                                      (default: api.push.apple.com, or
                                      api.sandbox.push.apple.com with --sandbox)
              --ca <path>             PEM certificates the server is verified against.
                                      (default: certs/ca.pem)
              --device-token <hex>    Device token the push is addressed to (required).
              --topic <topic>         apns-topic: the bundle id, plus the push type's suffix
                                      where one applies.
              --push-type <type>      apns-push-type, e.g. alert, background, voip,
                                      liveactivity.
              --priority <n>          apns-priority: 10, 5 or 1.
              --expiration <seconds>  apns-expiration, in seconds since 1970; 0 means
                                      deliver now or never.
              --collapse-id <id>      apns-collapse-id: pushes with the same id replace each
                                      other on the device.
              --apns-id <uuid>        apns-id to send; the server generates one when absent.
              -H, --header <name: value>
                                      Any other header; may repeat, and a header given twice
                                      is sent twice.
              --payload <json>        Request body as JSON text, or @FILE to read it from a
                                      file (@- for standard input).
                                      (default: {"aps":{"alert":"Hello from
                                      apns-emulator"}})
              --jwt <token>           Provider token to send as 'authorization: bearer',
                                      instead of minting one.
              --key-file <path>       PEM (.p8) private key the provider token is signed
                                      with. (default: certs/AuthKey_DEVKEY1234.p8)
              --key-id <id>           The key's 10-character id, sent as the token's 'kid'.
                                      (default: DEVKEY1234)
              --team-id <id>          The 10-character team id, sent as the token's 'iss'.
                                      (default: DEVTEAM123)
              --cert <path>           PEM client certificate for certificate authentication
                                      (with --key); no token is sent unless --jwt or
                                      --key-file/--key-id/--team-id is also given.
              --key <path>            PEM private key of --cert.
              --no-auth               Send neither a token nor a client certificate.
              --json                  Print the response as one JSON object instead of one
                                      line per field.
              -h, --help              Show help information.
            """
        #expect(HelpFormatter.help(for: SendCommand.self, path: ["apns-emulator", "send"]) == expected + "\n")
    }
}

/// How a response is printed: fixed order, only what is present, and the same keys in JSON.
struct SendOutcomeTests {
    @Test func successPrintsStatusAndIds() {
        let outcome = SendOutcome(
            H2Response(
                status: 200,
                headers: [H2Header("apns-id", "ABC-1"), H2Header("apns-unique-id", "u-1")]
            )
        )
        #expect(outcome.lines == ["status: 200", "apns-id: ABC-1", "apns-unique-id: u-1"])
        #expect(outcome.jsonText == #"{"status":200,"apns-id":"ABC-1","apns-unique-id":"u-1"}"#)
    }

    @Test func goneResponseCarriesReasonAndTimestampFromTheBody() {
        let outcome = SendOutcome(
            H2Response(
                status: 410,
                headers: [H2Header("content-type", "application/json"), H2Header("apns-id", "X")],
                body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8)
            )
        )
        #expect(outcome.lines == ["status: 410", "reason: Unregistered", "apns-id: X", "timestamp: 1700000000123"])
        #expect(
            outcome.jsonText == #"{"status":410,"reason":"Unregistered","apns-id":"X","timestamp":1700000000123}"#
        )
    }

    @Test func jsonOutputParsesBackToTheSameValues() throws {
        let outcome = SendOutcome(
            status: 400,
            reason: "Bad\"Quote\\\n\u{01}",
            apnsId: "id",
            timestamp: "12",
            unparsedBody: nil
        )
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.jsonText.utf8)) as? [String: Any]
        )
        #expect(object["reason"] as? String == "Bad\"Quote\\\n\u{01}")
        #expect((object["status"] as? NSNumber)?.intValue == 400)
        #expect((object["timestamp"] as? NSNumber)?.int64Value == 12)
    }

    @Test func bodyThatIsNotAPNsJSONIsShownAsIs() {
        let outcome = SendOutcome(H2Response(status: 502, body: Array("upstream down".utf8)))
        #expect(outcome.lines == ["status: 502", "body: upstream down"])
    }

    @Test func stringTimestampStaysAStringInJSON() {
        let body = Array(#"{"reason":"Unregistered","timestamp":"x"}"#.utf8)
        let outcome = SendOutcome(H2Response(status: 410, body: body))
        #expect(outcome.jsonText == #"{"status":410,"reason":"Unregistered","timestamp":"x"}"#)
    }
}
