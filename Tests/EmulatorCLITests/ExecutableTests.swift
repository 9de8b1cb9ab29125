import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The built `apns-emulator` binary, run as a separate process the way users and other tools run it.
@Suite("apns-emulator executable")
struct ExecutableTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// SwiftPM puts the executable next to the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("apns-emulator")
    }

    @Test func serveWritesTheExactReadyFileAnswersCurlAndStopsOnSIGTERM() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("exe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready.json")
        let process = SpawnedProcess()
        process.executableURL = Self.binary
        process.currentDirectoryURL = Self.packageRoot
        process.arguments = ["serve", "--production-port", "0", "--sandbox-port", "0", "--control-port", "0", "--front-door-port", "0",
                             "--ready-file", ready.path, "--certs", "certs"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: ready.path) && Date() < deadline && process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        let text = try String(contentsOf: ready, encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(Set(json.keys) == ["production", "sandbox", "control", "ca", "frontDoors"])
        let caPath = Self.packageRoot.appendingPathComponent("certs/ca.pem").standardizedFileURL.path
        #expect(json["ca"] == caPath)
        let production = try #require(json["production"])
        let port = try #require(Int(production.split(separator: ":").last ?? ""))
        #expect(production == "https://127.0.0.1:\(port)")
        #expect(try #require(json["sandbox"]).hasPrefix("https://127.0.0.1:"))
        #expect(try #require(json["control"]).hasPrefix("http://127.0.0.1:"))
        // The exact shape other tools read, key order included.
        #expect(text.hasPrefix(#"{"production":"https://127.0.0.1:\#(port)","sandbox":"https://127.0.0.1:"#))

        let curl = SpawnedProcess()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-w", " %{http_version} %{http_code}", "--http2", "--cacert", caPath,
                          "--resolve", "api.push.apple.com:\(port):127.0.0.1", "-d", "{}",
                          "https://api.push.apple.com:\(port)/3/device/00"]
        let curlOut = Pipe()
        curl.standardOutput = curlOut
        try curl.run()
        await waitOffPool(curl)
        // The README's first curl: an HTTP/2 answer in Apple's terms ("00" is no device token).
        #expect(String(decoding: curlOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                == #"{"reason":"BadDeviceToken"} 2 400"#)

        let health = SpawnedProcess()
        health.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        health.arguments = ["-s", try #require(json["control"]) + "/_emulator/health"]
        let healthOut = Pipe()
        health.standardOutput = healthOut
        try health.run()
        await waitOffPool(health)
        #expect(String(decoding: healthOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == #"{"status":"ok"}"#)

        kill(process.processIdentifier, SIGTERM)
        await waitOffPool(process)
        #expect(process.terminationStatus == 0)
        let banner = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(banner.split(separator: "\n").contains { $0.hasPrefix("ready:") })
    }

    @Test func unknownFlagExits64NamingTheArgument() async throws {
        let process = SpawnedProcess()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--production-prot", "1"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        await waitOffPool(process)
        #expect(process.terminationStatus == 64)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("--production-prot"))
    }

    /// The executable's allocator is jemalloc for everything in the process, glibc's own callers included (the
    /// CPU per push bench/load.sh measures assumes it). The dynamic linker's binding log says where `malloc`
    /// resolved; written to a file, as it runs to thousands of lines.
    @Test func everyMallocInTheProcessIsJemallocs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ldlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = SpawnedProcess()
        process.executableURL = Self.binary
        process.arguments = ["--version"]
        process.environment = ["LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": folder.appendingPathComponent("ld").path]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        await waitOffPool(process)
        #expect(process.terminationStatus == 0)
        let logs = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let log = try #require(logs.first.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) })
        // "binding file <caller> [0] to <library> [0]: normal symbol `malloc' [GLIBC_2.2.5]"
        let mallocBindings = log.split(separator: "\n").filter { $0.contains("normal symbol `malloc'") }
        #expect(mallocBindings.contains { $0.contains("/libc.so.6 [0] to ") })
        #expect(mallocBindings.allSatisfy { $0.contains("/libjemalloc.so.2 [0]: normal symbol") })
    }

    @Test func dockerComposeFileIsAcceptedByDockerCompose() async throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/docker-compose")
        process.currentDirectoryURL = Self.packageRoot
        process.arguments = ["-f", "docker-compose.yml", "config", "-q"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        await waitOffPool(process)
        #expect(process.terminationStatus == 0, "\(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
    }
}

/// Waits for a child process on its own thread, so the two threads of Swift's cooperative pool on a 2-core
/// machine stay free for the tests that are awaiting network I/O meanwhile.
func waitOffPool(_ process: SpawnedProcess) async {
    let box = UncheckedProcess(process)
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            box.process.waitUntilExit()
            cont.resume()
        }
    }
}

/// Hands a SpawnedProcess to the waiting thread.
struct UncheckedProcess: @unchecked Sendable {
    // @unchecked Sendable: the other thread only calls waitUntilExit(), which Foundation allows from any thread.
    let process: SpawnedProcess
    init(_ process: SpawnedProcess) { self.process = process }
}
