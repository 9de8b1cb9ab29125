import Foundation
import SpawnedProcess
import Testing

/// `apns-emulator test --emulator URL` reports each run to the live emulator, step by step, which keeps the runs
/// across the resets the runner makes (the dashboard's run list).
@Suite("Scenario runs reported to a live emulator", .timeLimit(.minutes(3)))
struct ScenarioRunReportTests {
    @Test func aRunAgainstALiveEmulatorIsKeptWithEachStepsOutcome() async throws {
        // Scenarios run on a manual clock unless they say otherwise: the live emulator must have one.
        let served = try await ServedEmulator(["--manual-clock"])
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
            name: A token
            devices:
              - id: phone
                apps: [{bundleId: com.example.app}]
            steps:
              - call: GetToken
            """.write(to: dir.appendingPathComponent("a-token.yaml"), atomically: true, encoding: .utf8)
        let file = dir.appendingPathComponent("badge.yaml")
        try """
            name: A badge that is not there
            devices:
              - id: phone
                apps: [{bundleId: com.example.app}]
            steps:
              - call: RequestAuthorization
                options: [1, 2, 3]
              - call: GetToken
              - expect: {badge: 7}
            """.write(to: file, atomically: true, encoding: .utf8)
        let run = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path, ["test", "--emulator", control, "--certs", "certs", "--jobs", "1",
                                          dir.appendingPathComponent("a-token.yaml").path, file.path],
            directory: ExecutableTests.packageRoot, timeout: .seconds(90))
        #expect(run.status == 1, "\(run.transcript)")
        let listed = try await SpawnedProcess.runToCompletion("curl", ["-s", control + "/_emulator/scenario-runs"], timeout: .seconds(20))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let runs = try #require(json["runs"] as? [[String: Any]])
        // Two runs, though the runner reset the emulator before the second.
        #expect(runs.map { $0["name"] as? String } == ["A token", "A badge that is not there"])
        #expect(runs.first?["outcome"] as? String == "passed")
        let record = try #require(runs.last)
        #expect(record["name"] as? String == "A badge that is not there")
        #expect(record["outcome"] as? String == "failed")
        let steps = try #require(record["steps"] as? [[String: Any]])
        #expect(steps.map { $0["kind"] as? String } == ["call", "call", "expect"])
        #expect(steps.map { $0["outcome"] as? String } == ["passed", "passed", "failed"])
        #expect(steps.map { $0["line"] as? Int } == [6, 8, 9])
        #expect((record["failures"] as? [String])?.first?.contains("expect.badge") == true)
    }
}
