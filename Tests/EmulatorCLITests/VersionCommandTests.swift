import APNsEmulator
import Testing

@testable import EmulatorCLI

/// `version` and `--version` print the same single line from `EmulatorVersion.current`.
struct VersionCommandTests {
    @Test func versionFlagPrintsNameAndVersionAndExits0() async {
        let result = await runCLI(["--version"])
        #expect(result.code == .success)
        #expect(result.output == "apns-emulator \(EmulatorVersion.current)\n")
        #expect(result.errorOutput.isEmpty)
    }

    @Test func versionSubcommandPrintsTheSameLineAsTheFlag() async {
        let flag = await runCLI(["--version"])
        let subcommand = await runCLI(["version"])
        #expect(subcommand.code == .success)
        #expect(subcommand.output == flag.output)
    }

    @Test func versionStartsAtZeroPointOne() {
        #expect(EmulatorVersion.current == "0.1.0")
    }

    @Test func versionSubcommandRejectsArguments() async {
        let result = await runCLI(["version", "--short"])
        #expect(result.code == .usage)
        #expect(result.errorOutput.hasPrefix("error: argument 2 '--short': unknown option\n"))
    }
}
