import APNsEmulator
import APNsProtocol
import Foundation
import Testing

@testable import EmulatorCLI

/// Every `serve` flag lands in the matching `EmulatorConfiguration` field, and bad values name their argument.
struct ServeCommandTests {
    private func configuration(_ arguments: [String]) throws -> EmulatorConfiguration {
        try parseServe(arguments).emulatorConfiguration
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
            "--no-client-certificates",
            "--state-dir", "/var/lib/apns-emulator",
            "--ephemeral",
            "--import", "/tmp/snapshot.json",
            "--control-token", "s3cret",
            "--realism", "strict",
            "--no-journal",
            "--journal-capacity", "500",
            "--manual-clock",
            "--low-priority-delay", "1.5",
            "--latency", "lognormal:5ms,p99=50ms",
            "--connection-rate-limit", "100",
            "--goaway-after-requests", "1000",
            "--goaway-after-seconds", "60",
            "--brownout", "0.05:500",
            "--token-rate-limit", "20",
            "--token-rate-window", "0.5",
            "--no-sample-key",
            "--require-push-type",
            "--allow-background-priority-10",
            "--non-object-payload-reason", "BadRequestPayload",
            "--bad-environment-key-spelling", "observed",
            "--future-iat-tolerance", "60",
            "--provider-token-max-age", "7200",
            "--provider-token-refresh-interval", "0",
            "--topic-key-outside-topics-reason", "TopicDisallowed",
            "--foreign-team-topic-reason", "InvalidProviderToken",
            "--max-collapse-id-bytes", "32",
            "--broadcast-payload-limit", "4096",
            "--reject-der-signatures",
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
        expected.requestClientCertificates = false
        expected.stateDirectory = "/var/lib/apns-emulator"
        expected.ephemeral = true
        expected.importStateFile = "/tmp/snapshot.json"
        expected.controlToken = "s3cret"
        expected.connectionBehavior = .strict
        expected.journalEnabled = false
        expected.journalCapacity = 500
        expected.manualClock = true
        expected.lowPriorityDelaySeconds = 1.5
        expected.shaping.latency = .logNormal(medianMs: 5, p99Ms: 50)
        expected.shaping.connectionRateLimit = 100
        expected.shaping.goAwayAfterRequests = 1000
        expected.shaping.goAwayAfterSeconds = 60
        expected.shaping.brownoutShare = 0.05
        expected.shaping.brownoutStatus = 500
        expected.tokenRateLimit = 20
        expected.tokenRateWindowSeconds = 0.5
        expected.registerSampleKey = false
        expected.policy.defaultPushTypeToAlert = false
        expected.policy.rejectBackgroundPriority10 = false
        expected.policy.nonObjectPayloadReason = .badRequestPayload
        expected.policy.useUndocumentedBadEnvironmentKeySpelling = true
        expected.policy.futureIssuedAtToleranceSeconds = 60
        expected.policy.providerTokenMaxAgeSeconds = 7200
        expected.policy.providerTokenRefreshIntervalSeconds = 0
        expected.policy.topicKeyOutsideTopicsReason = .topicDisallowed
        expected.policy.foreignTeamTopicReason = .invalidProviderToken
        expected.policy.maxCollapseIdBytes = 32
        expected.policy.broadcastPayloadLimit = 4096
        expected.policy.acceptDEREncodedSignatures = false
        #expect(parsed == expected)
    }

    @Test func everyPolicySwitchIsReachableFromAFlag() throws {
        // Each flag above changed its field away from the default; a policy with no flagged field left over
        // would compare equal to the default here.
        let flagged = try configuration([
            "--require-push-type", "--allow-background-priority-10", "--non-object-payload-reason=BadRequestPayload",
            "--bad-environment-key-spelling=observed", "--future-iat-tolerance=1", "--provider-token-max-age=1",
            "--provider-token-refresh-interval=1", "--topic-key-outside-topics-reason=TopicDisallowed",
            "--foreign-team-topic-reason=DeviceTokenNotForTopic", "--max-collapse-id-bytes=1", "--broadcast-payload-limit=1", "--reject-der-signatures",
            "--reject-uppercase-apns-id",
        ]).policy
        let defaults = ValidationPolicy()
        let mirror = Mirror(reflecting: defaults)
        #expect(mirror.children.count == 13, "a new ValidationPolicy switch needs a serve flag")
        for (flaggedChild, defaultChild) in zip(Mirror(reflecting: flagged).children, mirror.children) {
            #expect("\(flaggedChild.value)" != "\(defaultChild.value)", "\(defaultChild.label ?? "?") has no flag")
        }
    }

    @Test func latencySpecsParseAndBadOnesNameTheArgument() throws {
        #expect(ServeCommand.parseLatency("fixed:5ms") == .fixed(ms: 5))
        #expect(ServeCommand.parseLatency("uniform:1-10") == .uniform(minMs: 1, maxMs: 10))
        #expect(ServeCommand.parseLatency("uniform:10ms-1ms") == nil)
        #expect(ServeCommand.parseLatency("lognormal:5ms,p50=9") == nil)
        #expect(ServeCommand.parseLatency("gamma:1") == nil)
        let error = try #require(parseError(ServeCommand.self, ["--latency", "soon"]))
        #expect(error.description.hasPrefix("argument 2 '--latency soon': expected none, fixed:5ms"))
        #expect(parseError(ServeCommand.self, ["--brownout", "1.5"]) != nil)
        #expect(parseError(ServeCommand.self, ["--brownout", "0.5:404"]) != nil)
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
        ("--handshake-timeout=-0.5", "a number of seconds, 0 or more"),
        ("--idle-timeout=-1", "a number of seconds, 0 or more"),
        ("--shutdown-grace=later", "a number of seconds, 0 or more"),
        ("--host=", "a non-empty value"),
        ("--realism=real", "'documented' or 'strict'"),
        ("--bad-environment-key-spelling=Observed", "'documented' or 'observed'"),
        ("--journal-capacity=0", "an integer from 1 to 2147483647"),
        ("--token-rate-limit=-1", "an integer from 0 to 2147483647"),
        ("--token-rate-window=0", "a number of seconds greater than 0"),
        ("--provider-token-max-age=0", "an integer from 1 to 2147483647"),
        ("--future-iat-tolerance=1.5", "an integer from 0 to 2147483647"),
        ("--max-collapse-id-bytes=0", "an integer from 1 to 2147483647"),
        ("--non-object-payload-reason=PayloadEmty", "one of Apple's reason strings; did you mean 'PayloadEmpty'?"),
        ("--topic-key-outside-topics-reason=Nope", "one of Apple's reason strings, e.g. PayloadEmpty"),
        ("--state-dir=", "a non-empty value"),
        ("--control-token=", "a non-empty value"),
    ])
    func outOfRangeValueIsAUsageErrorSayingWhatIsAccepted(argument: String, expected: String) throws {
        let error = try #require(parseError(ServeCommand.self, [argument]))
        #expect(error.description == "argument 2 '\(argument)': expected \(expected)")
    }

    @Test func reasonsMatchWithoutRegardToCase() throws {
        let parsed = try configuration(["--non-object-payload-reason", "badrequestpayload"])
        #expect(parsed.policy.nonObjectPayloadReason == .badRequestPayload)
    }

    @Test func realismDocumentedIsTheDefaultProfile() throws {
        #expect(try configuration(["--realism", "documented"]).connectionBehavior == .documented)
        #expect(try configuration([]).connectionBehavior.profileName == "documented")
    }

    @Test func controlTokenIsReadFromTheEnvironmentWhenTheFlagIsAbsent() throws {
        let environment = [ServeCommand.controlTokenVariable: "from-env"]
        #expect(try parseServe([], environment: environment).emulatorConfiguration.controlToken == "from-env")
        let flagWins = try parseServe(["--control-token", "from-flag"], environment: environment)
        #expect(flagWins.emulatorConfiguration.controlToken == "from-flag")
        let empty = try parseServe([], environment: [ServeCommand.controlTokenVariable: ""])
        #expect(empty.emulatorConfiguration.controlToken == nil, "compose's ${VAR:-} means unset")
    }

    @Test(arguments: ["0.0.0.0", "::", "10.1.2.3", "example.com", "[::]"])
    func nonLoopbackHostWithoutAControlTokenIsAUsageErrorNamingHost(host: String) throws {
        let error = try #require(parseServeError(["--sandbox-port", "0", "--host", host], environment: [:]))
        #expect(error.shortDescription == "UsageError.invalidCombination")
        #expect(error.argument == ArgumentCursor.Argument(index: 4, text: "--host \(host)"))
        #expect(error.message.contains("pass --control-token <token>"))
        #expect(error.description.hasPrefix("argument 4 '--host \(host)': --host \(host) makes the control API"))
    }

    @Test func nonLoopbackHostStartsWithATokenFromTheFlagOrTheEnvironment() throws {
        let flagged = try parseServe(["--host", "0.0.0.0", "--control-token", "t"], environment: [:])
        #expect(flagged.emulatorConfiguration.controlToken == "t")
        let fromEnvironment = try parseServe(["--host", "::"], environment: [ServeCommand.controlTokenVariable: "t"])
        #expect(fromEnvironment.emulatorConfiguration.controlToken == "t")
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

/// Parses `serve`'s arguments with an explicit environment, so a token set in the test runner's own environment
/// cannot change the outcome.
func parseServe(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> ServeCommand {
    var cursor = ArgumentCursor(arguments, firstIndex: 2)
    let parsed = try ServeCommand(parsing: &cursor, environment: environment)
    try parsed.validate()
    return parsed
}

/// The usage error `parseServe` raises, or nil when it succeeds.
func parseServeError(_ arguments: [String], environment: [String: String]) -> UsageError? {
    do {
        _ = try parseServe(arguments, environment: environment)
        return nil
    } catch {
        return error
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
                    "serve", "--certs", certs, "--production-port", "0", "--sandbox-port", "0", "--control-port", "0", "--front-door-port", "0",
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

    @Test func summaryLineCountsEverySuccessStatusAsOk() {
        let metrics = EmulatorMetrics()
        metrics.response(reason: nil, pushType: .alert, environment: .production, micros: 100)
        metrics.response(reason: nil, status: 201, pushType: .liveactivity, environment: .production, micros: 100)
        metrics.response(reason: nil, status: 204, pushType: .liveactivity, environment: .production, micros: 100)
        metrics.response(reason: .badDeviceToken, pushType: .alert, environment: .production, micros: 100)
        var previous: UInt64 = 0
        let line = ServeCommand.summaryLine(metrics.snapshot(), previousTotal: &previous)
        #expect(line.hasPrefix("4 requests (75.0% ok)  4/s"), "\(line)")
    }
}

@Suite("serve: the open-file limit")
struct OpenFileLimitTests {
    @Test func theLimitIsSharedSoNeitherPortsFloodStarvesTheOther() {
        #expect(OpenFileLimit.share(of: 20_000) == (apns: 14_000, control: 5_000))
        #expect(OpenFileLimit.share(of: 1_024) == (apns: 512, control: 256))
        #expect(OpenFileLimit.share(of: 1 << 20) == (apns: 986_148, control: 10_000))
        #expect(OpenFileLimit.share(of: 100).apns == 1)
    }

    @Test func theSoftLimitIsRaisedToTheHardOne() {
        var limit = rlimit()
        let soft = OpenFileLimit.raise()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(soft == Int(limit.rlim_cur))
        #expect(limit.rlim_cur == min(limit.rlim_max, 1 << 20))
    }
}
