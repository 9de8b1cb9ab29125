import Foundation
import SpawnedProcess
import Testing

/// `GET /_emulator/journal?after=&waitSeconds=` waits for the next entry instead of answering empty, without holding
/// up other control calls (the dashboard's live journal).
@Suite("Journal long-poll", .timeLimit(.minutes(3)))
struct JournalLongPollTests {
    static func curl(_ arguments: [String]) async throws -> String {
        try await SpawnedProcess.runToCompletion("curl", ["-s"] + arguments, timeout: .seconds(40)).stdout
    }

    @Test func aLongPollAnswersWhenTheNextRequestIsJournaledAndOtherCallsGoOnMeanwhile() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let port = try served.port("production")
        let started = Date()
        async let waited = Self.curl([control + "/_emulator/journal?after=0&waitSeconds=20"])
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await Self.curl([control + "/_emulator/health"]) == #"{"status":"ok"}"#, "a waiting poll holds up no call")
        _ = try await Self.curl(["--http2", "--cacert", ExecutableTests.packageRoot.appendingPathComponent("certs/ca.pem").path,
                                 "-d", "{}", "https://127.0.0.1:\(port)/3/device/00"])
        let body = try await waited
        let seconds = Date().timeIntervalSince(started)
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 1, "\(body)")
        #expect(entries.first?["path"] as? String == "/3/device/00")
        #expect(seconds >= 0.4 && seconds < 15, "answered after \(seconds) s")
    }

    @Test func aLongPollWithNothingNewAnswersEmptyAtItsDeadline() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let started = Date()
        let body = try await Self.curl([control + "/_emulator/journal?after=0&waitSeconds=1"])
        let seconds = Date().timeIntervalSince(started)
        #expect(body == #"{"entries":[]}"#)
        #expect(seconds >= 0.9 && seconds < 10, "answered after \(seconds) s")
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", control + "/_emulator/journal?waitSeconds=31"]) == "400")
    }
}
