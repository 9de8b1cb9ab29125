import APNsEmulator
import Testing

@testable import EmulatorCLI

/// Help is generated from the declarations; these pin it so any change to flags, defaults or layout is a reviewed diff.
struct HelpFormatterTests {
    /// The defaults `serve` promises in its help, written out rather than read from the code under test.
    static let serveDefaults: [(flag: String, defaultValue: String?)] = [
        ("--host <address>", "127.0.0.1"),
        ("--production-port <port>", "2197"),
        ("--sandbox-port <port>", "2198"),
        ("--control-port <port>", "8765"),
        ("--front-door-port <port>", "2199"),
        ("--no-front-doors", nil),
        ("--fcm-legacy-api <state>", "open"),
        ("--ready-file <path>", nil),
        ("--certs <dir>", "certs"),
        ("--event-loops <n>", "one per core"),
        ("--max-concurrent-streams <n>", "1000"),
        ("--max-body-bytes <n>", "65536"),
        ("--handshake-timeout <seconds>", "10"),
        ("--preface-timeout <seconds>", "10"),
        ("--max-connections <n>", nil),
        ("--idle-timeout <seconds>", "3600"),
        ("--shutdown-grace <seconds>", "10"),
        ("--no-client-certificates", nil),
        ("--transport-only", nil),
        ("--state-dir <dir>", ".emulator-state"),
        ("--ephemeral", nil),
        ("--state-store <url>", nil),
        ("--replica-id <name>", "<host name>-<pid>"),
        ("--advertise-host <host>", "--host, or the host name when --host is 0.0.0.0 or ::"),
        ("--cluster-journal <when>", "behind"),
        ("--import <file>", nil),
        ("--control-token <token>", nil),
        ("--realism <profile>", "documented"),
        ("--no-journal", nil),
        ("--journal-capacity <n>", "100000"),
        ("--manual-clock", nil),
        ("--low-priority-delay <seconds>", "0"),
        ("--latency <spec>", "none"),
        ("--delivery-latency <spec>", "none"),
        ("--connection-rate-limit <n>", "0"),
        ("--goaway-after-requests <n>", "0"),
        ("--goaway-after-seconds <seconds>", "0"),
        ("--brownout <share[:status]>", "0"),
        ("--token-rate-limit <n>", "0"),
        ("--token-rate-window <seconds>", "1"),
        ("--no-sample-key", nil),
        ("--require-push-type", nil),
        ("--allow-background-priority-10", nil),
        ("--non-object-payload-reason <reason>", "PayloadEmpty"),
        ("--bad-environment-key-spelling <spelling>", "documented"),
        ("--future-iat-tolerance <seconds>", "3600"),
        ("--provider-token-max-age <seconds>", "3600"),
        ("--provider-token-refresh-interval <seconds>", "1200"),
        ("--topic-key-outside-topics-reason <reason>", "InvalidProviderToken"),
        ("--foreign-team-topic-reason <reason>", "TopicDisallowed"),
        ("--max-collapse-id-bytes <n>", "64"),
        ("--broadcast-payload-limit <n>", "5120"),
        ("--reject-der-signatures", nil),
        ("--reject-uppercase-apns-id", nil),
        ("--environment-from-listener-only", nil),
        ("--no-rfc7540-priorities", nil),
        ("--log-level <level>", "info"),
        ("--request-log", nil),
        ("--log-format <format>", "text"),
        ("-h, --help", nil),
    ]

    private var serveHelp: String {
        HelpFormatter.help(for: ServeCommand.self, path: ["apns-emulator", "serve"])
    }

    @Test(arguments: serveDefaults.indices)
    func serveHelpListsEveryFlagWithItsDefault(index: Int) throws {
        let (flag, defaultValue) = Self.serveDefaults[index]
        let entry = try #require(helpEntry(for: flag, in: serveHelp), "no help entry for \(flag)")
        if let defaultValue {
            #expect(entry.hasSuffix("(default: \(defaultValue))"), "\(entry)")
        } else {
            #expect(!entry.contains("(default:"), "\(entry)")
        }
    }

    @Test func serveHelpListsExactlyTheDeclaredFlags() {
        let listed = serveHelp.split(separator: "\n").filter { $0.hasPrefix("  -") }.count
        #expect(listed == Self.serveDefaults.count)
    }

    @Test func serveHelpIsPinned() {
        let expected = """
            OVERVIEW: Start the APNs emulator and run until interrupted.

            Listens for HTTP/2 over TLS on the production and sandbox ports, for plain
            HTTP/1.1 on the control port, and for FCM's and OneSignal's APIs over TLS on the
            front-door port. Once every listener accepts connections it prints a table of
            endpoints and a final line starting with 'ready:', then runs until SIGINT or
            SIGTERM and shuts down gracefully. A second signal stops it at once.

            Registered keys, device tokens and faults are kept in --state-dir across
            restarts, unless --ephemeral. Bound beyond loopback (--host 0.0.0.0), the
            control API needs --control-token: the emulator refuses to start without one.

            Example, on free ports, for a test run:
              apns-emulator serve --production-port 0 --sandbox-port 0 --control-port 0 --front-door-port 0 --ready-file ready.json

            USAGE: apns-emulator serve [<options>]

            OPTIONS:
              --host <address>        Address every listener binds to; use 0.0.0.0 inside a
                                      container, with --control-token. (default: 127.0.0.1)
              --production-port <port>
                                      Port of the production APNs listener
                                      (api.push.apple.com); 0 picks a free port.
                                      (default: 2197)
              --sandbox-port <port>   Port of the sandbox APNs listener
                                      (api.sandbox.push.apple.com); 0 picks a free port.
                                      (default: 2198)
              --control-port <port>   Port of the plain HTTP/1.1 control API; 0 picks a free
                                      port. (default: 8765)
              --front-door-port <port>
                                      Port of the providers' front doors over TLS: FCM's
                                      HTTP v1 and legacy APIs, Google's OAuth token endpoint
                                      and OneSignal's notifications API; 0 picks a free
                                      port. (default: 2199)
              --no-front-doors        Serve no front doors (no FCM or OneSignal endpoints).
              --fcm-legacy-api <state>
                                      open: POST /fcm/send works as before its shutdown;
                                      shut-down: every target gets DeprecatedApi, as since
                                      FCM turned the legacy API off. (default: open)
              --ready-file <path>     Write the endpoints as JSON to this file once every
                                      listener accepts connections.
              --certs <dir>           Folder holding ca.pem, server.pem and server-key.pem
                                      (see 'apns-emulator certs'). (default: certs)
              --event-loops <n>       Event-loop threads serving APNs connections.
                                      (default: one per core)
              --max-concurrent-streams <n>
                                      SETTINGS_MAX_CONCURRENT_STREAMS advertised to each
                                      connection. (default: 1000)
              --max-body-bytes <n>    Request bodies larger than this are not buffered and
                                      are reported as too large. (default: 65536)
              --handshake-timeout <seconds>
                                      Close connections that have not finished the TLS
                                      handshake by then; 0 never does. (default: 10)
              --preface-timeout <seconds>
                                      Close connections that have not sent the HTTP/2
                                      preface this long after the TLS handshake; 0 never
                                      does. (default: 10)
              --max-connections <n>   Close new APNs connections at once while this many are
                                      open (the others are served on); default: the
                                      open-file limit less a quarter for the control port
                                      and a twentieth for files.
              --idle-timeout <seconds>
                                      Send GOAWAY to connections idle this long; 0 never
                                      does. (default: 3600)
              --shutdown-grace <seconds>
                                      On SIGINT/SIGTERM, how long in-flight streams may
                                      finish before connections close. (default: 10)
              --no-client-certificates
                                      Do not request TLS client certificates (token
                                      authentication only).
              --transport-only        Benchmarking aid: answer every APNs request 200
                                      without validating it, to measure the transport alone.
              --state-dir <dir>       Folder of the state store (keys, device tokens,
                                      faults), kept across restarts; created if missing.
                                      (default: .emulator-state)
              --ephemeral             Keep all state in memory: nothing is read from or
                                      written to --state-dir.
              --state-store <url>     redis://HOST:PORT[/DB]: share keys, tokens, faults and
                                      shaping live with every emulator on the same Redis,
                                      with a cluster journal (GET /_emulator/cluster).
                                      Replaces --state-dir.
              --replica-id <name>     This emulator's name among the replicas of
                                      --state-store (letters, digits, . _ -; up to 64).
                                      (default: <host name>-<pid>)
              --advertise-host <host>
                                      With --state-store, the host other replicas reach this
                                      one's control API on, for reads merged across the
                                      cluster. (default: --host, or the host name when
                                      --host is 0.0.0.0 or ::)
              --cluster-journal <when>
                                      With --state-store, when an accepted push is answered:
                                      behind (at once, copied within 50 ms; a replica killed
                                      outright loses the copies of its last 50 ms) or
                                      durable (once it is in the cluster journal, about a
                                      Redis round trip later: a replica killed outright
                                      loses none a client saw accepted, and a cluster
                                      journal read after the answer holds it).
                                      (default: behind)
              --import <file>         Import a state snapshot (GET /_emulator/state) at
                                      start; with --state-store it replaces the shared
                                      state.
              --control-token <token>
                                      Bearer token every control API request must carry;
                                      required when --host is not a loopback address. Read
                                      from APNS_EMULATOR_CONTROL_TOKEN when the flag is
                                      absent.
              --realism <profile>     documented: only what Apple documents. strict: also
                                      what real APNs was seen to do (one stream until a
                                      token is accepted, one stream after a rejection,
                                      GOAWAY after 10 errors). (default: documented)
              --no-journal            Do not record requests in the journal (for load
                                      tests).
              --journal-capacity <n>  Journal entries kept; the oldest are dropped beyond
                                      this. (default: 100000)
              --manual-clock          Start the clock at the real time and move it only
                                      through POST /_emulator/clock/advance.
              --low-priority-delay <seconds>
                                      Hold priority 5 and 1 pushes this long before
                                      delivering them to online virtual devices.
                                      (default: 0)
              --latency <spec>        Delay every answer: fixed:5ms, uniform:1ms-10ms or
                                      lognormal:5ms,p99=50ms (also live: PUT
                                      /_emulator/shaping). (default: none)
              --delivery-latency <spec>
                                      Time from a push's 200 to its arrival on an online
                                      virtual device: fixed:500ms, uniform:10ms-200ms or
                                      lognormal:50ms,p99=2000ms (needs the real clock; POST
                                      /_emulator/settle waits for it). (default: none)
              --connection-rate-limit <n>
                                      Answer 429 TooManyRequests beyond this many requests
                                      per connection per second; 0 never does. (default: 0)
              --goaway-after-requests <n>
                                      Recycle each connection with GOAWAY after this many
                                      requests; 0 never does. (default: 0)
              --goaway-after-seconds <seconds>
                                      Recycle each connection with GOAWAY once it is this
                                      old; 0 never does. (default: 0)
              --brownout <share[:status]>
                                      Answer this share of requests (0-1) with 503
                                      ServiceUnavailable, or 500 InternalServerError with
                                      :500. (default: 0)
              --token-rate-limit <n>  Answer 429 TooManyRequests to pushes beyond this many
                                      per device token per --token-rate-window; 0 never
                                      does. (default: 0)
              --token-rate-window <seconds>
                                      The window --token-rate-limit counts pushes in.
                                      (default: 1)
              --no-sample-key         Do not register the sample signing key
                                      (certs/AuthKey_DEVKEY1234.p8) at start.
              --require-push-type     Answer 400 InvalidPushType when apns-push-type is
                                      absent (as watchOS requires), instead of assuming
                                      alert.
              --allow-background-priority-10
                                      Accept background pushes at priority 10 instead of
                                      answering 400 BadPriority.
              --non-object-payload-reason <reason>
                                      Reason for a body that is not a JSON object, for which
                                      Apple documents none. (default: PayloadEmpty)
              --bad-environment-key-spelling <spelling>
                                      documented: BadEnvironmentKeyIdInToken, as Apple
                                      documents it. observed: BadEnvironmentKeyInToken, as
                                      some servers were seen to send it.
                                      (default: documented)
              --future-iat-tolerance <seconds>
                                      A provider token issued further than this in the
                                      future is InvalidProviderToken. (default: 3600)
              --provider-token-max-age <seconds>
                                      A provider token issued longer ago than this is
                                      ExpiredProviderToken. (default: 3600)
              --provider-token-refresh-interval <seconds>
                                      A new provider token on a connection sooner than this
                                      after the previous new one is 429
                                      TooManyProviderTokenUpdates; 0 never is.
                                      (default: 1200)
              --topic-key-outside-topics-reason <reason>
                                      Reason for a topic-specific key signing a push to a
                                      topic outside its list.
                                      (default: InvalidProviderToken)
              --foreign-team-topic-reason <reason>
                                      Reason for a provider token pushing to a bundle id
                                      another team's key lists in its topics.
                                      (default: TopicDisallowed)
              --max-collapse-id-bytes <n>
                                      Longest apns-collapse-id accepted, in bytes.
                                      (default: 64)
              --broadcast-payload-limit <n>
                                      Largest broadcast push payload accepted, in bytes.
                                      (default: 5120)
              --reject-der-signatures
                                      Reject provider tokens signed in DER (as Java signs)
                                      rather than JOSE's raw r||s; real APNs accepts both.
              --reject-uppercase-apns-id
                                      Answer an apns-id with uppercase hex digits 400
                                      BadMessageId instead of echoing it as sent.
              --environment-from-listener-only
                                      Let the listener alone choose production or sandbox,
                                      ignoring Apple host names in :authority and SNI.
              --no-rfc7540-priorities
                                      Advertise SETTINGS_NO_RFC7540_PRIORITIES=1 (RFC 9218),
                                      as nghttpd --no-rfc7540-pri does.
              --log-level <level>     error: only errors; info: the banner and, on a
                                      terminal, the live summary; debug: the banner and one
                                      line per request instead of the summary.
                                      (default: info)
              --request-log           One line per APNs request on standard output (from the
                                      journal).
              --log-format <format>   The request log's lines: text or json (one object a
                                      line). (default: text)
              -h, --help              Show help information.
            """
        #expect(serveHelp == expected + "\n")
    }

    @Test func shortOptionListsItsFlagsInTheUsageLine() {
        #expect(
            HelpFormatter.usage(for: CertsCommand.self, path: ["apns-emulator", "certs"])
                == "apns-emulator certs [--out <dir>] [--force]"
        )
    }

    @Test func certsHelpShowsTheDefaultFolder() throws {
        let help = HelpFormatter.help(for: CertsCommand.self, path: ["apns-emulator", "certs"])
        let entry = try #require(helpEntry(for: "--out <dir>", in: help))
        #expect(entry.hasSuffix("(default: certs)"))
        #expect(helpEntry(for: "--force", in: help) != nil)
    }

    @Test func rootHelpPointsAtPerSubcommandHelp() {
        let help = HelpFormatter.help(for: APNsEmulatorCommand.self, path: ["apns-emulator"])
        #expect(help.contains("SUBCOMMANDS:\n  serve "))
        #expect(help.hasSuffix("  See 'apns-emulator help <subcommand>' for detailed help.\n"))
    }

    @Test(arguments: ["serve", "send", "token", "certs", "version"])
    func everyHelpLineFitsEightyColumnsExceptVerbatimExamples(name: String) throws {
        let subcommands = APNsEmulatorCommand.configuration.subcommands
        let command = try #require(subcommands.first { $0.configuration.name == name })
        let help = HelpFormatter.help(for: command, path: ["apns-emulator", name])
        for line in help.split(separator: "\n")
        where !line.hasPrefix("  apns-emulator ") && !line.hasPrefix("  curl ") && !line.hasPrefix("USAGE: ") {
            #expect(line.count <= HelpFormatter.width, "\(line)")
        }
    }

    @Test func rootHelpListsSendAndToken() {
        let help = HelpFormatter.help(for: APNsEmulatorCommand.self, path: ["apns-emulator"])
        #expect(help.contains("\n  send                    Send one push notification and print the response.\n"))
        #expect(help.contains("\n  token                   Print a provider token (JWT) signed with a .p8 key.\n"))
    }

    @Test func wrapNeverSplitsADefaultFromItsValue() {
        let wrapped = HelpFormatter.wrap(String(repeating: "word ", count: 14) + "(default:\u{00A0}2197)", indent: 26)
        #expect(wrapped.contains("(default: 2197)"))
    }
}
