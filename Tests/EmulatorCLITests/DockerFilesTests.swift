import Foundation
import Testing

/// The Docker files, read (no engine here): the user the image runs as can write where `serve` writes, the README's
/// `docker run` line publishes every listener, and the control token is the same in every place that names it.
@Suite("Docker files agree")
struct DockerFilesTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOf: ExecutableTests.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theImagesUserOwnsItsWorkingFolderAndStateVolume() throws {
        let dockerfile = try Self.read("Dockerfile")
        #expect(dockerfile.contains("chown apns:apns /opt/apns-emulator /var/lib/apns-emulator"))
        #expect(dockerfile.contains("WORKDIR /opt/apns-emulator") && dockerfile.contains("USER apns"))
        #expect(dockerfile.contains("EXPOSE 2197 2198 2199 8765"))
    }

    @Test func theReadmesDockerRunPublishesEveryListener() throws {
        let readme = try Self.read("README.md")
        let run = try #require(readme.split(separator: "\n").first { $0.hasPrefix("docker run ") })
        for port in ["2197", "2198", "2199", "8765"] { #expect(run.contains("127.0.0.1:\(port):\(port)"), "\(run)") }
    }

    @Test func oneControlTokenDefaultEverywhere() throws {
        let token = "apns-emulator-dev"
        #expect(try Self.read("Dockerfile").contains("ENV APNS_EMULATOR_CONTROL_TOKEN=\(token)"))
        #expect(try Self.read("docker-compose.yml").contains("${APNS_EMULATOR_CONTROL_TOKEN:-\(token)}"))
        #expect(try Self.read("scripts/scale/prometheus.yml").contains("credentials: \(token)"))
        #expect(try Self.read("README.md").contains("Authorization: Bearer \(token)"))
    }
}
