import APNsEmulator
import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import EmulatorCLI

/// `serve --request-log`: one line per APNs request, from the journal.
@Suite("Request log")
struct RequestLogTests {
    static func entry(_ id: Int64, status: Int = 200, reason: String? = nil) -> JournalEntry {
        JournalEntry(id: id, receivedAt: 1_796_000_000_123, connectionId: 1, environment: .sandbox, method: "POST",
                     path: "/3/device/abcd", token: "abcdef0123456789", topic: "com.example.app", pushType: "alert",
                     status: status, reason: reason, apnsId: "A-\(id)", durationMicros: 1_500)
    }

    @Test func textLinesSayWhatWasAnsweredAndAGapIsCounted() {
        let lines = RequestLog(format: .text).lines([Self.entry(3), Self.entry(6, status: 400, reason: "BadTopic")], after: 2)
        #expect(lines.count == 3)
        #expect(lines[0] == "2026-11-30T00:53:20.123Z sandbox 200 - POST alert com.example.app abcdef01… apns-id=A-3 1.50 ms")
        #expect(lines[1] == "… 2 requests not logged (no longer in the journal when read)")
        #expect(lines[2].contains(" 400 BadTopic "))
    }

    @Test func jsonLinesAreOneObjectEach() throws {
        let line = try #require(RequestLog(format: .json).lines([Self.entry(1, status: 410, reason: "Unregistered")], after: 0).first)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(o["status"] as? Int == 410)
        #expect(o["reason"] as? String == "Unregistered")
        #expect(o["token"] as? String == "abcdef0123456789")
        #expect(o["durationMs"] as? Double == 1.5)
    }

    @Test func theRequestLogNeedsTheJournalAndDebugTurnsItOn() throws {
        #expect(throws: UsageError.self) { try parseServe(["--request-log", "--no-journal"]) }
        #expect(try parseServe(["--log-level", "debug"]).requestLog?.format == .text)
        #expect(try parseServe(["--log-format", "json", "--request-log"]).requestLog?.format == .json)
        #expect(try parseServe([]).requestLog == nil)
        #expect(throws: UsageError.self) { try parseServe(["--log-level", "loud"]) }
    }

    @Test func serveLogsEachRequestAndPrintsNothingElseAtLevelError() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("reqlog-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let served = try await ServedEmulator(["--request-log", "--log-format", "json", "--log-level", "error"],
                                              standardOutput: try FileHandle(forWritingTo: out))
        defer { served.stop() }
        let endpoints = served.endpoints
        let port = try #require(endpoints["production"].flatMap { Int($0.split(separator: ":").last ?? "") })
        let ca = ExecutableTests.packageRoot.appendingPathComponent("certs/ca.pem").path
        let curl = try await SpawnedProcess.runToCompletion("/usr/bin/curl", [
            "-sS", "-o", "/dev/null", "--http2", "--cacert", ca, "--resolve", "api.push.apple.com:\(port):127.0.0.1",
            "-d", "{}", "https://api.push.apple.com:\(port)/3/device/00"], timeout: .seconds(30))
        #expect(curl.status == 0, "\(curl.stderr)")
        let deadline = Date().addingTimeInterval(10)
        var text = ""
        while !text.contains("BadDeviceToken"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "at level error the request log is all that is printed: \(text)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(o["status"] as? Int == 400)
        #expect(o["reason"] as? String == "BadDeviceToken")
        #expect(o["environment"] as? String == "production")
    }
}
