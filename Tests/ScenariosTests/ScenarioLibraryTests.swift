import Foundation
import Testing

@testable import Scenarios

/// The scenario library under `scenarios/` runs in `make test`: every file parses and every scenario
/// passes. Scenarios tagged `external` wait for a sender outside the emulator; they run in
/// `EmulatorCLITests` with curl as that sender.
@Suite("Scenario library", .timeLimit(.minutes(5)))
struct ScenarioLibraryTests {
    static let folder = packageRoot.appendingPathComponent("scenarios").path

    @Test func everyFileParsesAndTheLibraryIsLargeEnough() throws {
        let files = try ScenarioRunner.discover([Self.folder])
        let (scenarios, errors) = ScenarioRunner.load(files)
        #expect(errors.isEmpty, "\(errors)")
        #expect(scenarios.count >= 40)
        #expect(!files.contains { $0.contains("/fragments/") })
        for s in scenarios {
            let text = try String(contentsOfFile: s.file, encoding: .utf8)
            #expect(text.hasPrefix("# Guards against:"), "\(s.file) must open with the bug it guards against")
        }
    }

    @Test func everyScenarioPasses() async throws {
        let (scenarios, _) = ScenarioRunner.load(try ScenarioRunner.discover([Self.folder]))
        let runnable = scenarios.filter { !$0.tags.contains("external") }
        let runner = ScenarioRunner(options: .init(certificatesDirectory: bundledCertificates, jobs: 2))
        let results = await runner.run(runnable)
        #expect(results.count == runnable.count)
        for r in results where r.outcome == .failed {
            let details = r.failures.map(\.description).joined(separator: "\n")
            Issue.record(Comment(rawValue: "\(r.scenario.location) \(r.scenario.name):\n\(details)"))
        }
    }
}
