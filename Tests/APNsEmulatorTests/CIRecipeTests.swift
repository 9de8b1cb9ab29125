import Foundation
import SpawnedProcess
import Testing

/// The CI recipes in `examples/ci/` are valid for the services that read them, by the schemas check-jsonschema
/// bundles (GitHub's workflow schema, GitLab's CI schema), run from a cached venv.
@Suite("CI recipes", .timeLimit(.minutes(6)))
struct CIRecipeTests {
    static func check(_ schema: String, _ file: String) async throws -> SpawnedProcess.Completion {
        let python = try await PythonVenv.checkJsonschema.python()
        return try await SpawnedProcess.runToCompletion(
            python, ["-m", "check_jsonschema", "--builtin-schema", schema, file],
            directory: AioapnsPaths.packageRoot, timeout: .seconds(120))
    }

    @Test(arguments: [("vendor.github-workflows", "examples/ci/github-actions.yml"),
                      ("vendor.gitlab-ci", "examples/ci/gitlab-ci.yml")])
    func theRecipeIsValidForItsService(schema: String, file: String) async throws {
        let run = try await Self.check(schema, file)
        #expect(run.status == 0, "\(run.transcript)")
    }

    @Test func theCheckRefusesABrokenWorkflow() async throws {
        let recipe = try String(contentsOf: AioapnsPaths.packageRoot.appendingPathComponent("examples/ci/github-actions.yml"),
                                encoding: .utf8)
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: broken) }
        // A job with no runner and no steps is not a workflow GitHub would run.
        try recipe.replacingOccurrences(of: "    runs-on: ubuntu-latest\n", with: "")
            .replacingOccurrences(of: "    steps:", with: "    stepz:")
            .write(to: broken, atomically: true, encoding: .utf8)
        let run = try await Self.check("vendor.github-workflows", broken.path)
        #expect(run.status != 0, "\(run.transcript)")
    }
}
