import APNsEmulator
import EmulatorTesting
import Foundation
import SpawnedProcess
import Testing

/// Every sender in `examples/` pushes to an in-process emulator and the push is journaled as accepted. An
/// example whose toolchain is not on the machine is reported as skipped (Go comes with `make test`'s packages;
/// Node and Java run where they are installed; Python's packages come from a cached venv).
@Suite("Examples: a sender per ecosystem", .timeLimit(.minutes(6)))
struct ExamplesTests {
    static let root = ExecutableTests.packageRoot

    static func tool(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Sends through `command` with the examples' variables; returns its output after checking the journal.
    static func send(_ command: [String], extra: [String: String] = [:]) async throws -> String {
        let emu = try TestEmulator(certificatesDirectory: root.appendingPathComponent("certs").path)
        defer { emu.shutdown() }
        let token = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .production, now: 0).token
        var environment: [String: String?] = [
            "APNS_URL": emu.endpoints.production, "APNS_CA_FILE": emu.endpoints.ca,
            "APNS_KEY_FILE": root.appendingPathComponent("certs/AuthKey_DEVKEY1234.p8").path,
            "APNS_KEY_ID": "DEVKEY1234", "APNS_TEAM_ID": "DEVTEAM123", "APNS_TOPIC": "com.example.app",
            "APNS_DEVICE_TOKEN": token,
        ]
        for (k, v) in extra { environment[k] = v }
        let run = try await SpawnedProcess.runToCompletion(command[0], Array(command.dropFirst()), directory: root,
                                                           environment: environment, timeout: .seconds(240))
        #expect(run.status == 0, "\(command): \(run.transcript)")
        let apnsId = try #require(run.stdout.split(separator: " ").drop { $0 != "apns-id" }.dropFirst().first
            .map { String($0.split(separator: "\n")[0]) }, "\(run.stdout)")
        let entry = try #require(emu.services.journal.query(JournalFilter(apnsId: apnsId)).first, "journaled")
        #expect(entry.status == 200 && entry.token == token && entry.topic == "com.example.app")
        return run.stdout
    }

    @Test func curl() async throws {
        let out = try await Self.send(["/bin/sh", "examples/curl/send.sh"], extra: ["APNS_EMULATOR": ExecutableTests.binary.path])
        #expect(out.hasPrefix("status 200"))
    }

    @Test(.enabled(if: tool("node") != nil, "node is not installed"))
    func node() async throws {
        #expect(try await Self.send([Self.tool("node")!, "examples/node/send.mjs"]).hasPrefix("status 200"))
    }

    @Test(.enabled(if: tool("java") != nil, "java is not installed"))
    func java() async throws {
        let out = try await Self.send([Self.tool("java")!, "examples/java/Send.java"])
        #expect(out.contains("(HTTP_2)"), "java.net.http negotiated HTTP/2: \(out)")
    }

    @Test(.enabled(if: tool("go") != nil, "go is not installed (scripts/install-deps.sh installs golang-go)"))
    func go() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("apns-emulator-gocache").path
        let out = try await Self.send([Self.tool("go")!, "run", "examples/go/main.go"],
                                      extra: ["GOCACHE": cache])
        #expect(out.contains("(HTTP/2.0)"), "\(out)")
    }

    @Test func pythonHttpx() async throws {
        let venv = try await SpawnedProcess.runToCompletion(
            "python3", ["scripts/test/python_venv.py", "--requirement", "httpx[http2]==0.27.2 pyjwt[crypto]==2.9.0",
                        "--imports", "httpx, h2, jwt"], directory: Self.root, timeout: .seconds(300))
        let python = try #require(venv.status == 0 ? venv.stdout.split(separator: "\n").last.map(String.init) : nil,
                                  "no venv for httpx (is PyPI reachable?): \(venv.transcript)")
        let out = try await Self.send([python, "examples/python/httpx_send.py"])
        #expect(out.contains("(HTTP/2)"), "\(out)")
    }
}
