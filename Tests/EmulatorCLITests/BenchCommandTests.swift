import APNsEmulator
import EmulatorTesting
import Foundation
import StateStore
import Testing

@testable import EmulatorCLI

@Suite("LatencyHistogram")
struct LatencyHistogramTests {
    @Test func bucketsAreContiguousAndWithinTwoPercent() {
        var previous = -1
        for v in stride(from: UInt64(0), to: 5_000_000, by: 997) {
            let i = LatencyHistogram.index(v)
            #expect(i >= previous)
            previous = i
            let low = LatencyHistogram.lowerBound(i)
            #expect(low <= v && v < LatencyHistogram.lowerBound(i + 1))
            #expect(Double(v - low) <= Double(max(v, 1)) * 0.016)
        }
    }

    @Test func percentilesOfAKnownDistribution() {
        var h = LatencyHistogram()
        for v in 1...1000 { h.record(UInt64(v) * 1000) }   // 1 ms … 1000 ms, in µs
        #expect(abs(Double(h.value(at: 0.5)) - 500_000) / 500_000 < 0.02)
        #expect(abs(Double(h.value(at: 0.99)) - 990_000) / 990_000 < 0.02)
        #expect(h.value(at: 1.0) == 1_000_000)
        #expect(h.maximum == 1_000_000)
        var other = LatencyHistogram()
        other.record(2_000_000)
        h.merge(other)
        #expect(h.total == 1001)
        #expect(h.value(at: 1.0) == 2_000_000)
    }
}

@Suite("bench command", .timeLimit(.minutes(2)))
struct BenchCommandTests {
    @Test func benchRegistersItsOwnKeyAndTokensAndWritesTheJSONContract() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let r = await runCLI(["bench", "--target", emu.endpoints.production, "--control", emu.endpoints.control,
                              "--connections", "2", "--streams", "10", "--count", "300", "--tokens", "3", "--json", json])
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        #expect(r.output.contains("requests:   300 (300 succeeded, 0 failed)"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        #expect(report["requests"] as? Int == 300)
        #expect(report["succeeded"] as? Int == 300)
        #expect((report["throughputPerSecond"] as? Double ?? 0) > 0)
        let latency = try #require(report["latencyMs"] as? [String: Double])
        #expect(Set(latency.keys).isSuperset(of: ["p50", "p90", "p99", "p999", "max"]))
        #expect(latency["p50"]! <= latency["p99"]! && latency["p99"]! <= latency["max"]!)
        #expect((report["errors"] as? [String: Int])?.isEmpty == true)
        #expect(emu.services.tokens.all(bundleId: "com.example.app", environment: .production).count == 3)
        #expect(emu.services.keys.all().contains { $0.teamId == "BENCHTEAM1" })
    }

    @Test func refusedPushesAreCountedByReason() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        try emu.services.faults.add(FaultRule(id: "all", action: .reason("ServiceUnavailable"), createdAt: emu.clock.now()))
        let (r, report) = try await Self.runBench(emu, ["--connections", "1", "--streams", "5", "--count", "50"])
        #expect(r.code == .failure, "nothing succeeded")
        #expect((report["errors"] as? [String: Int])?["ServiceUnavailable"] == 50)
    }

    @Test func gatesFailTheRunNamingWhatWasMissed() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let clean = try await Self.runBench(emu, ["--connections", "1", "--streams", "5", "--count", "100",
                                                  "--max-error-rate", "0", "--min-throughput", "1"]).0
        #expect(clean.code == .success, "\(clean.errorOutput)")
        #expect(!clean.errorOutput.contains("bench: "))
        let slow = try await Self.runBench(emu, ["--connections", "1", "--streams", "5", "--count", "100",
                                                 "--min-throughput", "1000000000"]).0
        #expect(slow.code == .failure)
        #expect(slow.errorOutput.contains("requests/s succeeded, below --min-throughput 1000000000"), "\(slow.errorOutput)")

        try emu.services.faults.add(FaultRule(id: "all", action: .reason("ServiceUnavailable"), createdAt: emu.clock.now()))
        let failing = try await Self.runBench(emu, ["--connections", "1", "--streams", "5", "--count", "40",
                                                    "--max-error-rate", "0.5"]).0
        #expect(failing.code == .failure)
        #expect(failing.errorOutput.contains("bench: 40 of 40 requests failed (100.00%), above --max-error-rate 0.5 (50.00%)"),
                "\(failing.errorOutput)")
        let bad = await runCLI(["bench", "--count", "1", "--max-error-rate", "2"])
        #expect(bad.code == .usage)
        #expect(bad.errorOutput.contains("a share from 0 to 1"), "\(bad.errorOutput)")
    }

    @Test func recycledConnectionsEndTheirShareWithoutRecursingAndTheRunFinishes() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs, configure: { $0.shaping.goAwayAfterRequests = 50 })
        defer { emu.shutdown() }
        let (r, report) = try await Self.runBench(emu, ["--connections", "2", "--streams", "10", "--count", "200000",
                                                        "--no-reconnect"])
        let succeeded = report["succeeded"] as? Int ?? 0
        #expect(succeeded >= 100 && succeeded < 200, "each connection carried about its quota: \(r.output)")
        #expect((report["requests"] as? Int ?? 0) < 1000, "dead connections stopped issuing")
        // The report says why the run ended before its count.
        #expect(report["connectionsLost"] as? Int == 2)
        #expect(r.output.contains("closed:     2 of 2 connection(s) closed by the server (GOAWAY or a closed socket) and "
                                  + "not reopened: the run ended with the last of them"), "\(r.output)")
    }

    /// A connection the server closes is replaced, as a sender would: what it still had to do (chains, and the
    /// requests the server refused unprocessed as it went away) goes on the next one. The count is reached, every
    /// push is answered, and none reaches the server twice.
    @Test func connectionsTheServerClosesAreReplacedAndTheCountIsReached() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs, configure: { $0.shaping.goAwayAfterRequests = 50 })
        defer { emu.shutdown() }
        let (r, report) = try await Self.runBench(emu, ["--connections", "2", "--streams", "10", "--count", "400"])
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        #expect(report["requests"] as? Int == 400)
        #expect(report["succeeded"] as? Int == 400, "\(r.output)")
        #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(r.output)")
        // 400 pushes at 50 a connection: 8 connections, 6 of them replacements (the last ones may close as the run ends).
        let lost = report["connectionsLost"] as? Int ?? 0, reopened = report["connectionsReopened"] as? Int ?? 0
        #expect(reopened >= 6 && lost >= reopened && lost <= reopened + 2, "lost \(lost), reopened \(reopened)")
        #expect(report["reconnectsFailed"] as? Int == 0)
        #expect(emu.services.journal.count() == 400, "each push reached the server once")
        #expect(r.output.contains("closed:     \(lost) connection(s) closed by the server (GOAWAY or a closed socket), "
                                  + "\(reopened) opened in their place"), "\(r.output)")
    }

    /// Connections recycled every 7 requests while 50 are in flight on each: the server closes each one while the
    /// client may still be writing, so it lingers (drains until the client's FIN) rather than closing at once, whose
    /// RST made the client's kernel drop answers the server had given; requests it refused are sent again. Every
    /// push succeeds, and the server processed each exactly once.
    @Test func busyConnectionsRecycledEverySevenRequestsLoseNoAnswer() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs, configure: { $0.shaping.goAwayAfterRequests = 7 })
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "4", "--streams", "50", "--count", "1000"])
        #expect(report["succeeded"] as? Int == 1000, "\(report)")
        #expect((report["errors"] as? [String: Int])?.isEmpty == true, "\(report)")
        #expect(emu.services.journal.count() == 1000)
    }

    /// Open loop: requests booked on a connection that goes away are sent on its replacement when due, so the
    /// schedule is kept exactly (rate × duration, all answered) through the server's recycling.
    @Test func atATargetRateTheScheduleIsKeptThroughRecycledConnections() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs,
                                   configure: { $0.shaping.goAwayAfterRequests = 100 })
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "2", "--streams", "5", "--rate", "400", "--duration", "1.2"])
        #expect(report["requests"] as? Int == 480)
        #expect(report["succeeded"] as? Int == 480, "\(report)")
        #expect((report["connectionsReopened"] as? Int ?? 0) >= 2, "\(report)")
        #expect(emu.services.journal.count() == 480)
    }

    /// A slot whose connection cannot be replaced gives up after `maxFailures` attempts in a row, backing off
    /// between them; the requests that waited for it count as NotSent, and the run ends.
    @Test func aConnectionThatCannotBeReplacedEndsItsShareAsNotSent() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs, configure: { $0.shaping.goAwayAfterRequests = 20 })
        defer { emu.shutdown() }
        let jwt = try emu.sampleJWT()
        let request = emu.push(to: try emu.issueToken(), jwt: jwt)
        let first = try await emu.connect()
        struct Refused: Error, CustomStringConvertible { var description: String { "refused by the test" } }
        var plan = LoadGenerator.Plan(streamsPerConnection: 5, count: 100, duration: nil, rate: nil)
        plan.reconnect = LoadGenerator.Reconnect(connect: { throw Refused() }, timeout: .seconds(5), maxFailures: 2)
        let generator = LoadGenerator(connections: [first], requests: [request], plan: plan)
        let outcome = await generator.run()
        generator.closeConnections()
        // The server answers what it took before its GOAWAY (the 20th and any others it had begun): those, and
        // only those, reached it.
        #expect(outcome.succeeded >= 20 && outcome.succeeded == emu.services.journal.count())
        #expect(outcome.connectionsLost == 1 && outcome.connectionsReopened == 0)
        #expect(outcome.reconnectsFailed == 2)
        #expect(outcome.lastReconnectError == "refused by the test")
        #expect(outcome.errors.keys.allSatisfy { $0 == "NotSent" }, "\(outcome.errors)")
        #expect((outcome.errors["NotSent"] ?? 0) > 0, "the refused requests waited for a connection")
        #expect(outcome.requests == outcome.succeeded + (outcome.errors["NotSent"] ?? 0))
    }

    /// The wait between attempts: none after a connection that worked, then 50 ms doubling up to 2 s.
    @Test func reconnectsBackOffAfterFailures() {
        let waits = (0...8).map { LoadGenerator.Reconnect.backoff(afterFailures: $0) }
        #expect(waits == [.zero, .milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400),
                          .milliseconds(800), .milliseconds(1600), .milliseconds(2000), .milliseconds(2000)])
    }

    /// As fast as possible for a while: requests stop being sent at the deadline and every one sent is answered.
    @Test func asFastAsPossibleForADurationStopsAndCountsWhatItSent() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "1", "--streams", "4", "--duration", "1"])
        let requests = report["requests"] as? Int ?? 0
        #expect(requests > 0 && report["succeeded"] as? Int == requests)
        #expect(report["connectionsLost"] as? Int == 0)
        #expect(emu.services.journal.count() == requests, "every push sent reached the server and was answered")
    }

    /// Open loop, a duration bounds when requests are due, not when a free stream reaches them: exactly
    /// `rate × duration` requests (each stream schedules its next one ahead, which once sent a few more).
    @Test func atATargetRateTheDurationBoundsTheScheduleExactly() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "2", "--streams", "5", "--rate", "400", "--duration", "0.5"])
        #expect(report["requests"] as? Int == 200)
        #expect(report["succeeded"] as? Int == 200)
    }

    /// Latency counts from when each request was due: one stream whose answers take 20 ms carries 50 a second,
    /// so at 200 a second request i goes out ~15·i ms late, and that wait is latency (a stall is not hidden).
    @Test func atATargetRateLatencyCountsFromWhenEachRequestWasDue() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs,
                                   configure: { $0.shaping.latency = .fixed(ms: 20) })
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "1", "--streams", "1", "--rate", "200", "--count", "20"])
        #expect(report["succeeded"] as? Int == 20)
        let latency = try #require(report["latencyMs"] as? [String: Double])
        // Lower bounds only (a slow machine adds latency, never removes it): measured from the send, every
        // request would take ~20 ms; from when it was due, the median is ~170 ms and the last ~300 ms.
        #expect(latency["p50"]! >= 100 && latency["max"]! >= 200, "\(latency)")
    }

    /// The payload comes from a file with `@`, and certificate auth replaces the provider token: the emulator
    /// journals that payload under certificate auth, and no signing key is registered for the run.
    @Test func aPayloadFileAndCertificateAuthAreWhatTheServerSees() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let payload = FileManager.default.temporaryDirectory.appendingPathComponent("payload-\(UUID().uuidString).json").path
        try Data(#"{"aps":{"alert":"from a file"},"n":7}"#.utf8).write(to: URL(fileURLWithPath: payload))
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let certs = TestCommandTests.certs + "/"
        let report = try await Self.bench(emu, ["--connections", "1", "--streams", "2", "--count", "6",
                                                "--payload", "@" + payload,
                                                "--cert", certs + DevCertificates.FileName.productionClientCertificate,
                                                "--key", certs + DevCertificates.FileName.productionClientKey])
        #expect(report["succeeded"] as? Int == 6 && report["auth"] as? String == "certificate")
        let entries = emu.services.journal.query()
        #expect(entries.count == 6)
        #expect(entries.allSatisfy { $0.payload == #"{"aps":{"alert":"from a file"},"n":7}"# })
        #expect(entries.allSatisfy { $0.authMode == "certificate" })
        #expect(!emu.services.keys.all().contains { $0.teamId == "BENCHTEAM1" })
    }

    /// A file that cannot be read ends the run with its name, before anything is registered on the emulator.
    @Test func anUnreadableFileIsNamedAndNothingIsRegistered() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let base = ["bench", "--target", emu.endpoints.production, "--control", emu.endpoints.control, "--count", "5"]
        let missingPayload = await runCLI(base + ["--payload", "@/nonexistent/payload.json"])
        #expect(missingPayload.code == .failure)
        #expect(missingPayload.errorOutput.contains("cannot read the payload file '/nonexistent/payload.json'"),
                "\(missingPayload.errorOutput)")
        let missingCert = await runCLI(base + ["--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem"])
        #expect(missingCert.code == .failure)
        #expect(missingCert.errorOutput.contains("cannot read the client certificate '/nonexistent/c.pem'"),
                "\(missingCert.errorOutput)")
        // Readable but not a certificate: TLS cannot be set up, which is found before registering too.
        let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-cert-\(UUID().uuidString).pem").path
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: notPEM))
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        let badCert = await runCLI(base + ["--cert", notPEM, "--key", notPEM])
        #expect(badCert.code == .failure)
        #expect(badCert.errorOutput.contains("cannot set up TLS with") && badCert.errorOutput.contains(notPEM),
                "\(badCert.errorOutput)")
        #expect(!emu.services.keys.all().contains { $0.teamId == "BENCHTEAM1" })
        #expect(emu.services.tokens.all(bundleId: "com.example.app", environment: .production).isEmpty)
    }

    /// The sandbox listener is recognised by its port however its URL is spelled, so the tokens the run
    /// registers are sandbox tokens and the pushes are accepted.
    @Test func theSandboxListenerIsToldByItsPort() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let report = try await Self.bench(emu, ["--connections", "1", "--streams", "2", "--count", "4"],
                                          target: emu.endpoints.sandbox + "/")
        #expect(report["succeeded"] as? Int == 4 && report["environment"] as? String == "sandbox")
        #expect(emu.services.tokens.all(bundleId: "com.example.app", environment: .sandbox).count == 1)
    }

    /// --registered-tokens pushes to the app tokens the emulator already holds for the topic that take pushes
    /// (not one ended, not another app's), and registers none of its own.
    @Test func registeredTokensAreThePushesTargets() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let now = emu.clock.now()
        let live = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .production, now: now)
        let ended = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .production, now: now)
        _ = try emu.services.tokens.unregister(ended.token, at: now)
        _ = try emu.services.tokens.issue(bundleId: "com.example.other", environment: .production, now: now)
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let r = await runCLI(["bench", "--target", emu.endpoints.production, "--control", emu.endpoints.control,
                              "--registered-tokens", "--connections", "1", "--streams", "4", "--count", "20", "--json", json])
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        let entries = emu.services.journal.query()
        #expect(entries.count == 20 && entries.allSatisfy { $0.token == live.token && $0.status == 200 })
        #expect(emu.services.tokens.all().count == 3, "no token registered for the run")
    }

    /// With nothing to push to, the run ends before registering anything; --token and --registered-tokens
    /// together are refused as usage.
    @Test func registeredTokensNeedSomeAndExcludeToken() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let base = ["bench", "--target", emu.endpoints.production, "--control", emu.endpoints.control, "--count", "5"]
        let none = await runCLI(base + ["--registered-tokens"])
        #expect(none.code == .failure)
        #expect(none.errorOutput.contains("the emulator holds no app tokens for com.example.app in production"),
                "\(none.errorOutput)")
        #expect(!emu.services.keys.all().contains { $0.teamId == "BENCHTEAM1" })
        let both = await runCLI(base + ["--registered-tokens", "--token", String(repeating: "ab", count: 32)])
        #expect(both.code == .usage)
    }

    /// Runs `bench` against `emu` with one token and returns its JSON report.
    static func bench(_ emu: TestEmulator, _ arguments: [String], target: String? = nil) async throws -> [String: Any] {
        let (r, report) = try await runBench(emu, arguments, target: target)
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        return report
    }

    /// The same, whatever its exit code, with what it printed.
    static func runBench(_ emu: TestEmulator, _ arguments: [String], target: String? = nil) async throws
        -> (CLIResult, [String: Any])
    {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let r = await runCLI(["bench", "--target", target ?? emu.endpoints.production, "--control", emu.endpoints.control,
                              "--tokens", "1", "--json", json] + arguments)
        let data = try Data(contentsOf: URL(fileURLWithPath: json))
        return (r, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    /// The terminal's progress bar follows --count, or --duration when no count is given, whichever ends the
    /// run first when both are; without either bound there is only the count and rate.
    @Test func theProgressBarFollowsWhicheverBoundEndsTheRun() {
        #expect(BenchCommand.progressLine(done: 500, elapsed: 1, count: 1000, duration: nil)
                == "[" + String(repeating: "#", count: 15) + String(repeating: " ", count: 15) + "] 50%  500 requests  500/s")
        #expect(BenchCommand.progressLine(done: 300, elapsed: 2.5, count: nil, duration: 10)
                .hasPrefix("[" + String(repeating: "#", count: 7) + String(repeating: " ", count: 23) + "] 25%  300 requests"))
        #expect(BenchCommand.progressLine(done: 100, elapsed: 9, count: 1000, duration: 10).contains("] 90%"))
        #expect(BenchCommand.progressLine(done: 1000, elapsed: 11, count: nil, duration: 10)
                .hasPrefix("[" + String(repeating: "#", count: 30) + "] 100%"))
        #expect(BenchCommand.progressLine(done: 42, elapsed: 0.5, count: nil, duration: nil) == "42 requests  84/s")
        // 0.29 × 100 is 28.999… in binary: still 29%.
        #expect(BenchCommand.progressLine(done: 29, elapsed: 1, count: 100, duration: nil).contains("] 29%"))
        #expect(BenchCommand.progressLine(done: 57, elapsed: 1, count: 100, duration: nil).contains("] 57%"))
    }

    @Test func countOrDurationIsRequired() async {
        let r = await runCLI(["bench", "--connections", "1"])
        #expect(r.code == .usage)
    }
}
