import Foundation
import SpawnedProcess
import Testing

/// `examples/kubernetes/apns-emulator.yaml` is valid Kubernetes (kubernetes-validate, strict, against the schemas
/// of the version it bundles) and runs the replicas the way the compose profile does: on one shared Redis.
@Suite("Kubernetes manifests", .timeLimit(.minutes(6)))
struct KubernetesManifestTests {
    static let manifest = "examples/kubernetes/apns-emulator.yaml"

    static func validate(_ file: String) async throws -> SpawnedProcess.Completion {
        let python = try await PythonVenv.kubernetesValidate.python()
        return try await SpawnedProcess.runToCompletion(
            python, ["-m", "kubernetes_validate", "--strict", "-k", "1.31.0", file],
            directory: AioapnsPaths.packageRoot, timeout: .seconds(120))
    }

    @Test func theManifestIsValidKubernetes() async throws {
        let run = try await Self.validate(Self.manifest)
        #expect(run.status == 0, "\(run.transcript)")
        for kind in ["secret/apns-emulator-control", "deployment/apns-emulator-redis", "service/apns-emulator-redis",
                     "deployment/apns-emulator", "service/apns-emulator"] {
            #expect(run.transcript.contains("passed for resource \(kind)"), "\(run.transcript)")
        }
    }

    @Test func theCheckRefusesAMistypedField() async throws {
        let text = try String(contentsOf: AioapnsPaths.packageRoot.appendingPathComponent(Self.manifest), encoding: .utf8)
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: broken) }
        try text.replacingOccurrences(of: "containerPort: 8765", with: "containerport: 8765")
            .write(to: broken, atomically: true, encoding: .utf8)
        let run = try await Self.validate(broken.path)
        #expect(run.status != 0, "\(run.transcript)")
    }

    @Test func theReplicasShareOneRedisLikeTheComposeProfile() throws {
        let text = try String(contentsOf: AioapnsPaths.packageRoot.appendingPathComponent(Self.manifest), encoding: .utf8)
        #expect(text.contains(#""--state-store", "redis://apns-emulator-redis:6379""#))
        #expect(text.contains("name: apns-emulator-redis\nspec:"), "the Service the URL names")
        let compose = try String(contentsOf: AioapnsPaths.packageRoot.appendingPathComponent("docker-compose.yml"),
                                 encoding: .utf8)
        #expect(compose.contains(#""--state-store", "redis://redis:6379""#))
    }
}
