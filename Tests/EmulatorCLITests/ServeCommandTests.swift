import APNsEmulator
import Foundation
import Testing

@testable import EmulatorCLI

/// Every `serve` flag lands in the matching `EmulatorConfiguration` field, and bad values name their argument.
struct ServeCommandTests {
    private func configuration(_ arguments: [String]) throws -> EmulatorConfiguration {
        try parse(ServeCommand.self, arguments).emulatorConfiguration
    }

    @Test func noFlagsMeansTheEmulatorDefaults() throws {
        #expect(try configuration([]) == EmulatorConfiguration())
    }

    @Test func everyFlagFillsItsConfigurationField() throws {
        let parsed = try configuration([
            "--host", "0.0.0.0",
            "--production-port", "12197",
            "--sandbox-port", "12198",
            "--control-port", "18765",
            "--ready-file", "/tmp/ready.json",
            "--certs", "/etc/apns-certs",
            "--event-loops", "3",
            "--max-concurrent-streams", "1500",
            "--max-body-bytes", "5120",
            "--handshake-timeout", "2.5",
            "--idle-timeout", "0",
            "--shutdown-grace", "0.5",
            "--placeholder-status", "503",
            "--no-client-certificates",
        ])
        var expected = EmulatorConfiguration()
        expected.host = "0.0.0.0"
        expected.productionPort = 12197
        expected.sandboxPort = 12198
        expected.controlPort = 18765
        expected.readyFile = "/tmp/ready.json"
        expected.certificatesDirectory = "/etc/apns-certs"
        expected.eventLoops = 3
        expected.maxConcurrentStreams = 1500
        expected.maxRequestBodyBytes = 5120
        expected.handshakeTimeoutSeconds = 2.5
        expected.idleTimeoutSeconds = 0
        expected.shutdownGraceSeconds = 0.5
        expected.placeholderStatus = 503
        expected.requestClientCertificates = false
        #expect(parsed == expected)
    }

    @Test func equalsFormFillsTheSameFieldsAsSeparateValues() throws {
        let separate = try configuration(["--host", "::1", "--sandbox-port", "0", "--idle-timeout", "30"])
        let joined = try configuration(["--host=::1", "--sandbox-port=0", "--idle-timeout=30"])
        #expect(joined == separate)
        #expect(joined.host == "::1")
        #expect(joined.sandboxPort == 0)
        #expect(joined.idleTimeoutSeconds == 30)
    }

    @Test func portZeroOnEveryListenerIsAllowedBecauseEachGetsItsOwnFreePort() throws {
        let parsed = try configuration(["--production-port", "0", "--sandbox-port", "0", "--control-port", "0"])
        let ports: [Int] = [parsed.productionPort, parsed.sandboxPort, parsed.controlPort]
        #expect(ports == [0, 0, 0])
    }

    @Test func badPortNamesTheArgumentIndexAndTheAcceptedRange() throws {
        let error = try #require(parseError(ServeCommand.self, ["--host", "::", "--production-port", "x"]))
        #expect(error.description == "argument 4 '--production-port x': expected an integer from 0 to 65535")
    }

    @Test(arguments: [
        ("--production-port=65536", "an integer from 0 to 65535"),
        ("--control-port=-1", "an integer from 0 to 65535"),
        ("--event-loops=0", "an integer from 1 to 1024"),
        ("--max-concurrent-streams=0", "an integer from 1 to 2147483647"),
        ("--max-body-bytes=0", "an integer from 1 to 2147483647"),
        ("--placeholder-status=100", "an integer from 200 to 599"),
        ("--handshake-timeout=-0.5", "a number of seconds, 0 or more"),
        ("--idle-timeout=-1", "a number of seconds, 0 or more"),
        ("--shutdown-grace=later", "a number of seconds, 0 or more"),
        ("--host=", "a non-empty value"),
    ])
    func outOfRangeValueIsAUsageErrorSayingWhatIsAccepted(argument: String, expected: String) throws {
        let error = try #require(parseError(ServeCommand.self, [argument]))
        #expect(error.description == "argument 2 '\(argument)': expected \(expected)")
    }

    @Test func missingValueForTheLastFlagNamesIt() throws {
        let error = try #require(parseError(ServeCommand.self, ["--no-client-certificates", "--ready-file"]))
        #expect(error.description == "argument 3 '--ready-file': missing value <path> for '--ready-file'")
    }

    @Test func unknownFlagIsAUsageErrorWithASuggestion() throws {
        let error = try #require(parseError(ServeCommand.self, ["--port", "1"]))
        #expect(error.shortDescription == "UsageError.unknownOption")
        #expect(error.argument?.index == 2)
    }

    @Test func positionalArgumentIsRejected() throws {
        let error = try #require(parseError(ServeCommand.self, ["8080"]))
        #expect(error.description == "argument 2 '8080': unexpected argument")
    }

    @Test func twoListenersOnOneFixedPortBlameTheLaterFlag() throws {
        let error = try #require(
            parseError(ServeCommand.self, ["--control-port", "9000", "--sandbox-port", "9000"])
        )
        #expect(error.shortDescription == "UsageError.invalidCombination")
        #expect(error.argument == ArgumentCursor.Argument(index: 4, text: "--sandbox-port 9000"))
        #expect(error.message.contains("sandbox and control listeners would both use port 9000"))
    }

    @Test func clashingWithADefaultPortBlamesTheTypedFlag() throws {
        let error = try #require(parseError(ServeCommand.self, ["--sandbox-port=2197"]))
        #expect(error.argument?.text == "--sandbox-port=2197")
    }
}

/// `serve` end to end: real certificates, free ports, and an injected stop signal instead of a real one.
struct ServeCommandRunTests {
    @Test func printsTheBannerEndingInReadyThenShutsDownOnTheStopSignalAndExits0() async throws {
        try await withTemporaryDirectory { directory in
            let certs = directory.appendingPathComponent("certs").path
            let readyFile = directory.appendingPathComponent("ready.json").path
            #expect(await runCLI(["certs", "--out", certs]).code == .success)

            let result = await runCLI(
                [
                    "serve", "--certs", certs, "--production-port", "0", "--sandbox-port", "0", "--control-port", "0",
                    "--ready-file", readyFile, "--shutdown-grace", "0.1",
                ],
                waitForStopSignal: {
                    // The ready file exists by the time serve waits, so a script polling for it may connect at once.
                    #expect(FileManager.default.fileExists(atPath: readyFile))
                    return SIGTERM
                }
            )
            #expect(result.code == .success)
            let lines = result.output.split(separator: "\n")
            #expect(lines.first == "apns-emulator \(EmulatorVersion.current)")
            let ready = try #require(lines.last)
            #expect(ready.hasPrefix("ready: production=https://127.0.0.1:"))
            #expect(!ready.contains(":0 "), "port 0 should have been replaced by the bound port: \(ready)")
            #expect(result.output.contains("curl --http2 --cacert "))
            #expect(result.errorOutput.contains("received SIGTERM"))
            #expect(result.errorOutput.hasSuffix("stopped\n"))
        }
    }

    @Test func missingCertificatesPrintTheErrorAndExit1() async throws {
        try await withTemporaryDirectory { directory in
            let result = await runCLI([
                "serve", "--certs", directory.path, "--production-port=0", "--sandbox-port=0",
                "--control-port=0",
            ])
            #expect(result.code == .failure)
            #expect(result.errorOutput.hasPrefix("error: "))
            #expect(result.output.isEmpty)
        }
    }
}
