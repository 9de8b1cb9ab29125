import Testing

@testable import EmulatorCLI

/// Whole command lines through `EmulatorCLIMain.run`: exit codes, where text goes, and the usage hint.
struct CommandRunnerTests {
    @Test func unknownOptionNamesTheArgumentAndExits64() async {
        let result = await runCLI(["serve", "--verbose"])
        #expect(result.code == .usage)
        #expect(result.code.rawValue == 64)
        #expect(result.output.isEmpty)
        #expect(
            result.errorOutput == "error: argument 2 '--verbose': unknown option\nsee 'apns-emulator serve --help'\n"
        )
    }

    @Test func badIntegerNamesItsArgumentIndexAndExits64() async {
        let result = await runCLI(["serve", "--host", "127.0.0.1", "--production-port", "x"])
        #expect(result.code == .usage)
        #expect(
            result.errorOutput.hasPrefix(
                "error: argument 4 '--production-port x': expected an integer from 0 to 65535\n"
            )
        )
    }

    @Test func missingValueNamesTheOptionAndExits64() async {
        let result = await runCLI(["certs", "--out"])
        #expect(result.code == .usage)
        #expect(result.errorOutput.hasPrefix("error: argument 2 '--out': missing value <dir> for '--out'\n"))
        #expect(result.errorOutput.hasSuffix("see 'apns-emulator certs --help'\n"))
    }

    @Test func unknownSubcommandSuggestsTheNearestAndExits64() async {
        let result = await runCLI(["serv", "--host", "::"])
        #expect(result.code == .usage)
        #expect(
            result.errorOutput
                == "error: argument 1 'serv': unknown subcommand; did you mean 'serve'?\nsee 'apns-emulator --help'\n"
        )
    }

    @Test func unrelatedSubcommandListsTheAvailableOnes() async {
        let result = await runCLI(["start"])
        #expect(result.code == .usage)
        #expect(
            result.errorOutput.hasPrefix(
                "error: argument 1 'start': unknown subcommand (expected one of: serve, test, exec, bench, send, token, certs, version)\n"
            )
        )
    }

    @Test func noArgumentsIsAMissingSubcommandUsageError() async {
        let result = await runCLI([])
        #expect(result.code == .usage)
        #expect(
            result.errorOutput.hasPrefix(
                "error: missing subcommand (expected one of: serve, test, exec, bench, send, token, certs, version)\n"
            )
        )
    }

    @Test func rootHelpListsEverySubcommandOnStdoutAndExits0() async {
        let result = await runCLI(["--help"])
        #expect(result.code == .success)
        #expect(result.errorOutput.isEmpty)
        #expect(result.output.contains("USAGE: apns-emulator [--version] <subcommand>"))
        for name in ["serve", "certs", "version"] {
            #expect(result.output.contains("\n  \(name) "), "missing subcommand \(name)")
        }
    }

    @Test(arguments: [
        ["serve", "--help"], ["serve", "-h"], ["help", "serve"], ["serve", "--production-port", "x", "-h"],
    ])
    func helpForServeWinsOverEverythingElseOnTheLine(arguments: [String]) async {
        let result = await runCLI(arguments)
        #expect(result.code == .success)
        #expect(result.output.hasPrefix("OVERVIEW: Start the APNs emulator"))
        #expect(result.errorOutput.isEmpty)
    }

    @Test func helpAfterDoubleDashIsAnOperandNotARequest() async {
        let result = await runCLI(["version", "--", "--help"])
        #expect(result.code == .usage)
        #expect(result.errorOutput.hasPrefix("error: argument 3 '--help': unexpected argument\n"))
    }

    @Test func helpForAnUnknownSubcommandIsAUsageError() async {
        let result = await runCLI(["help", "benchmark"])
        #expect(result.code == .usage)
    }

    @Test func failureWhileRunningPrintsTheErrorAndExits1() async {
        let captured = CapturedOutput()
        let context = CommandContext(output: OutputSink { _ in }, errorOutput: captured.sink)
        let result = await CommandRunner(root: FailingCommand.self).run([], context: context)
        #expect(result == .failure)
        #expect(captured.text == "error: disk full\n")
    }
}

/// A command whose run fails, to pin the exit-1 path without touching the file system.
private struct FailingCommand: Command {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    static let configuration = CommandConfiguration(name: "failing")

    init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        _ = try arguments.parseOptions([])
    }

    func run(context: CommandContext) async throws -> ExitCode {
        throw Failure()
    }
}
