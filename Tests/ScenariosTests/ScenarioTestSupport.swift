import Foundation
import Testing

@testable import Scenarios

/// The package root (scenario library, certs).
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let bundledCertificates = packageRoot.appendingPathComponent("certs").path

/// Parses `text` as the file `name`; the error's description, or nil when it parsed.
func parseError(_ text: String, file: String = "s.yaml") -> String? {
    do {
        _ = try ScenarioParser(file: file).parse(text)
        return nil
    } catch {
        return error.description
    }
}

/// Parses `text` and runs every scenario in it on in-process emulators.
func run(_ text: String, file: String = "inline.yaml", responseTimeout: Duration = .seconds(30)) async throws
    -> [ScenarioResult]
{
    let scenarios = try ScenarioParser(file: file).parse(text)
    let runner = ScenarioRunner(options: .init(certificatesDirectory: bundledCertificates, jobs: 1,
                                               responseTimeout: responseTimeout))
    return await runner.run(scenarios)
}

/// A minimal valid scenario preamble: one device with one app.
let preamble = """
    name: t
    devices:
      - id: phone
        apps: [{bundleId: com.example.app}]
    steps:

    """
