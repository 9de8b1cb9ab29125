import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `apns-emulator serve` as a child process on free ports (every port 0, a ready file, `--ephemeral`), for the tests
/// that need the real executable: its endpoints once the ready file is written, and a SIGKILL when the test ends.
final class ServedEmulator {
    let process = SpawnedProcess()
    let folder: URL
    /// `production`, `sandbox`, `control` and `ca`, as the ready file has them.
    private(set) var endpoints: [String: String] = [:]

    /// - Parameter extra: more `serve` arguments; `standardOutput`: where its stdout goes (default: nowhere).
    init(_ extra: [String] = [], standardOutput: FileHandle = FileHandle.nullDevice) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ready = folder.appendingPathComponent("ready.json")
        process.executableURL = ExecutableTests.binary
        process.currentDirectoryURL = ExecutableTests.packageRoot
        process.arguments = ["serve", "--host", "127.0.0.1", "--production-port", "0", "--sandbox-port", "0",
                             "--control-port", "0", "--front-door-port", "0", "--ready-file", ready.path, "--certs", "certs", "--ephemeral"] + extra
        process.standardOutput = standardOutput
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while (try? Data(contentsOf: ready)).flatMap({ try? JSONSerialization.jsonObject(with: $0) }) == nil,
              Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        endpoints = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: ready)) as? [String: String],
                                 "serve never wrote its ready file")
    }

    /// The port of `listener` (`production`, `sandbox` or `control`).
    func port(_ listener: String) throws -> String {
        try #require(endpoints[listener].flatMap { $0.split(separator: ":").last.map(String.init) })
    }

    /// Kills it (call in a `defer`, which also keeps it alive until the test's end).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}
