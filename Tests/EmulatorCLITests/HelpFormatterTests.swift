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
        ("--ready-file <path>", nil),
        ("--certs <dir>", "certs"),
        ("--event-loops <n>", "one per core"),
        ("--max-concurrent-streams <n>", "1000"),
        ("--max-body-bytes <n>", "65536"),
        ("--handshake-timeout <seconds>", "10"),
        ("--idle-timeout <seconds>", "3600"),
        ("--shutdown-grace <seconds>", "10"),
        ("--placeholder-status <code>", "200"),
        ("--no-client-certificates", nil),
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

            Listens for HTTP/2 over TLS on the production and sandbox ports, and for plain
            HTTP/1.1 on the control port. Once every listener accepts connections it prints
            a table of endpoints and a final line starting with 'ready:', then runs until
            SIGINT or SIGTERM and shuts down gracefully. A second signal stops it at once.

            Example, on free ports, for a test run:
              apns-emulator serve --production-port 0 --sandbox-port 0 --control-port 0 --ready-file ready.json

            USAGE: apns-emulator serve [<options>]

            OPTIONS:
              --host <address>        Address every listener binds to; use 0.0.0.0 inside a
                                      container. (default: 127.0.0.1)
              --production-port <port>
                                      Port of the production APNs listener
                                      (api.push.apple.com); 0 picks a free port.
                                      (default: 2197)
              --sandbox-port <port>   Port of the sandbox APNs listener
                                      (api.sandbox.push.apple.com); 0 picks a free port.
                                      (default: 2198)
              --control-port <port>   Port of the plain HTTP/1.1 control API; 0 picks a free
                                      port. (default: 8765)
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
              --idle-timeout <seconds>
                                      Send GOAWAY to connections idle this long; 0 never
                                      does. (default: 3600)
              --shutdown-grace <seconds>
                                      On SIGINT/SIGTERM, how long in-flight streams may
                                      finish before connections close. (default: 10)
              --placeholder-status <code>
                                      HTTP status the placeholder handler answers with until
                                      the APNs handler exists. (default: 200)
              --no-client-certificates
                                      Do not request TLS client certificates (token
                                      authentication only).
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

    @Test func everyHelpLineFitsEightyColumnsExceptVerbatimExamples() {
        for line in serveHelp.split(separator: "\n") where !line.hasPrefix("  apns-emulator ") {
            #expect(line.count <= HelpFormatter.width, "\(line)")
        }
    }

    @Test func wrapNeverSplitsADefaultFromItsValue() {
        let wrapped = HelpFormatter.wrap(String(repeating: "word ", count: 14) + "(default:\u{00A0}2197)", indent: 26)
        #expect(wrapped.contains("(default: 2197)"))
    }
}
