import Foundation
import SpawnedProcess
import Testing

/// Clients that go after `serve`'s memory or connection slots (`scripts/test/hostile_clients.py`, raw frames from
/// Python's hyperframe in a cached venv): each attack is refused, counted in `/metrics`, and the emulator goes on
/// answering pushes. Memory is the child process's own (`/proc/<pid>/status`), so other tests cannot blur it.
@Suite("Hostile APNs clients", .timeLimit(.minutes(6)))
struct HostileClientTests {
    static let root = ExecutableTests.packageRoot

    static func python() async throws -> String {
        let venv = try await SpawnedProcess.runToCompletion(
            "python3", ["scripts/test/python_venv.py", "--requirement", "hyperframe==6.1.0 hpack==4.2.0",
                        "--imports", "hyperframe, hpack"], directory: root, timeout: .seconds(300))
        return try #require(venv.status == 0 ? venv.stdout.split(separator: "\n").last.map(String.init) : nil,
                            "no venv for hyperframe (is PyPI reachable?): \(venv.transcript)")
    }

    /// Runs one case of the attack script against `served`'s production listener; its output lines.
    static func attack(_ served: ServedEmulator, _ arguments: [String]) async throws -> [String] {
        let run = try await SpawnedProcess.runToCompletion(
            try await python(), ["scripts/test/hostile_clients.py", "--port", try served.port("production"),
                                 "--ca", "certs/ca.pem"] + arguments, directory: root, timeout: .seconds(90))
        #expect(run.status == 0, "\(run.transcript)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// `VmRSS` or `VmHWM` (peak) of `served`, in KiB.
    static func memory(_ served: ServedEmulator, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(served.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try #require(Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? ""))
    }

    /// A counter of `/metrics`.
    static func metric(_ served: ServedEmulator, _ name: String) async throws -> Int? {
        let control = try #require(served.endpoints["control"])
        let curl = try await SpawnedProcess.runToCompletion("/usr/bin/curl", ["-sS", control + "/metrics"],
                                                            timeout: .seconds(30))
        return curl.stdout.split(separator: "\n")
            .first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// A push still gets an APNs answer (no provider token: 403), on a fresh connection.
    static func expectStillServing(_ served: ServedEmulator) async throws {
        let port = try served.port("production")
        let curl = try await SpawnedProcess.runToCompletion("/usr/bin/curl", [
            "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert", "certs/ca.pem",
            "--resolve", "api.push.apple.com:\(port):127.0.0.1", "-d", "{}",
            "https://api.push.apple.com:\(port)/3/device/\(String(repeating: "ab", count: 32))"],
            directory: root, timeout: .seconds(30))
        #expect(curl.stdout == "403", "\(curl.transcript)")
    }

    @Test func aHeaderBombIsResetStreamByStreamAndMemoryStaysFlat() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let before = try Self.memory(served, "VmRSS")
        // Six streams of ~256 MiB of decoded header fields each: kept, two alone take the peak past 800 MB.
        let lines = try await Self.attack(served, ["--count", "6", "header-bomb"])
        let resets = lines.filter { $0.hasPrefix("RST_STREAM ") }
        #expect(resets.count == 6, "\(lines)")
        #expect(resets.allSatisfy { $0.hasSuffix(" 2") }, "INTERNAL_ERROR, as nghttpd answers: \(lines)")
        let peak = try Self.memory(served, "VmHWM")
        #expect(peak - before < 64 * 1024, "RSS \(before) KiB before, peak \(peak) KiB")
        #expect(try await Self.metric(served, "apns_emulator_header_lists_refused_total") == 6)
        try await Self.expectStillServing(served)
    }

    @Test func aClientDribblingThePrefaceIsClosedAtThePrefaceTimeout() async throws {
        let served = try await ServedEmulator(["--preface-timeout", "1"])
        defer { served.stop() }
        // 33 bytes at one per 0.5 s would take 16 s; the idle timeout is an hour.
        let lines = try await Self.attack(served, ["--interval", "0.5", "preface-dribble"])
        let closed = try #require(lines.first { $0.hasPrefix("CLOSED ") }, "\(lines)")
        let seconds = try #require(Double(closed.dropFirst("CLOSED ".count)))
        #expect(seconds >= 0.9 && seconds < 5, "\(closed)")
        #expect(try await Self.metric(served, "apns_emulator_preface_timeouts_total") == 1)
        try await Self.expectStillServing(served)
    }

    @Test func connectionsPastMaxConnectionsAreRefusedWhileTheOthersAreServed() async throws {
        let served = try await ServedEmulator(["--max-connections", "3"])
        defer { served.stop() }
        let lines = try await Self.attack(served, ["--count", "5", "--interval", "0.2", "hold-connections"])
        #expect(lines.contains("OPEN 3 REFUSED 2"), "\(lines)")
        #expect(try await Self.metric(served, "apns_emulator_connections_refused_total") == 2)
        // Once the held connections are gone (the count drops as they close), a new one is served again.
        let deadline = Date().addingTimeInterval(10)
        while try await Self.metric(served, "apns_emulator_open_connections") ?? 0 > 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Self.expectStillServing(served)
        #expect(try await Self.metric(served, "apns_emulator_connections_refused_total") == 2)
    }

    @Test func floodsOfBothPortsLeaveTheControlAPIReachable() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        // 1,200 of each: past select()'s 1,024, a common ceiling for an HTTP/1.1 server's connections.
        let lines = try await Self.attack(served, ["--count", "1200", "--control-port", try served.port("control"), "flood"])
        #expect(lines.contains("APNS 1200 CONTROL 1200 HEALTH 200"), "\(lines)")
        try await Self.expectStillServing(served)
    }

    @Test func aControlBodyOfTinyValuesIsRefusedWithinItsParseBudget() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("empties-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: body) }
        // 3 MB of empty objects: ~210 MiB as a tree, over the budget (Foundation's parser takes over 400 MB).
        try Data((#"{"x":["# + Array(repeating: "{}", count: 1_000_000).joined(separator: ",") + "]}").utf8).write(to: body)
        let before = try Self.memory(served, "VmRSS")
        let curl = try await SpawnedProcess.runToCompletion("/usr/bin/curl", [
            "-sS", "-w", "\n%{http_code}", "-X", "PUT", "--data-binary", "@" + body.path,
            try #require(served.endpoints["control"]) + "/_emulator/shaping"], timeout: .seconds(60))
        #expect(curl.stdout.hasSuffix("\n413"), "\(curl.transcript)")
        #expect(curl.stdout.contains("parsed, it would take more than 128 MiB"), "\(curl.stdout)")
        let peak = try Self.memory(served, "VmHWM")
        #expect(peak - before < 160 * 1024, "RSS \(before) KiB before, peak \(peak) KiB")
        try await Self.expectStillServing(served)
    }
}
