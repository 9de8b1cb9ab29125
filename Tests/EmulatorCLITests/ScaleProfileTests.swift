import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import SpawnedProcess
import Testing

/// Replicas without a shared store, without Docker: two `serve` processes importing one state snapshot, behind
/// Debian's HAProxy in TCP mode on loopback. Pushes through the proxy reach both replicas and every one is
/// accepted, because both know the snapshot's key and token. (The compose profile shares Redis instead:
/// `SharedScaleProfileTests`.)
@Suite("Scale profile: replicas behind HAProxy", .timeLimit(.minutes(2)))
struct ScaleProfileTests {
    final class Started: @unchecked Sendable {  // Processes are only touched from the test's task.
        var processes: [SpawnedProcess] = []
        func stop() { for p in processes where p.isRunning { p.terminate(); p.waitUntilExit() } }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func waitFor(_ path: String, _ process: SpawnedProcess) async throws {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline && process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(FileManager.default.fileExists(atPath: path), "\(process.arguments) did not start")
    }

    @Test func twoReplicasBehindHAProxyAcceptTheSameTokens() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let started = Started()
        defer { started.stop() }

        // The snapshot: one instance's keys (the sample key) and a token, exported.
        let source = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        let token = try source.issueToken()
        let jwt = try source.sampleJWT()
        let snapshot = dir.appendingPathComponent("snapshot.json")
        try JSONEncoder().encode(source.services.exportState()).write(to: snapshot)
        source.shutdown()

        var controls: [String] = []
        var ports: [Int] = []
        for i in 0..<2 {
            let ready = dir.appendingPathComponent("ready-\(i).json").path
            let p = SpawnedProcess()
            p.executableURL = ExecutableTests.binary
            p.arguments = ["serve", "--production-port", "0", "--sandbox-port", "0", "--control-port", "0", "--front-door-port", "0", "--ephemeral",
                           "--no-sample-key", "--import", snapshot.path, "--ready-file", ready, "--certs", TestCommandTests.certs]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            started.processes.append(p)
            try await Self.waitFor(ready, p)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ready)))
                as? [String: String])
            controls.append(try #require(json["control"]))
            ports.append(try #require(Int(json["production"]?.split(separator: ":").last ?? "")))
        }

        let front = try Self.freePort()
        let config = dir.appendingPathComponent("haproxy.cfg")
        try """
            defaults
                mode tcp
                timeout connect 5s
                timeout client 30s
                timeout server 30s
            frontend apns
                bind 127.0.0.1:\(front)
                default_backend replicas
            backend replicas
                balance roundrobin
                server r1 127.0.0.1:\(ports[0])
                server r2 127.0.0.1:\(ports[1])

            """.write(to: config, atomically: true, encoding: .utf8)
        let haproxy = SpawnedProcess()
        haproxy.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        haproxy.arguments = ["-db", "-f", config.path]
        haproxy.standardOutput = FileHandle.nullDevice
        let haproxyErrors = Pipe()
        haproxy.standardError = haproxyErrors
        try haproxy.run()
        started.processes.append(haproxy)

        let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: TestCommandTests.certs + "/ca.pem"))
        defer { client.shutdown() }
        var statuses: [Int] = []
        let deadline = Date().addingTimeInterval(30)
        for _ in 0..<6 {
            var connection: H2ClientConnection?
            while connection == nil && Date() < deadline {
                connection = try? await client.connect(host: "127.0.0.1", port: front, serverName: "api.push.apple.com")
                if connection == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            if connection == nil && !haproxy.isRunning {
                let why = String(decoding: haproxyErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                Issue.record("HAProxy exited: \(why)")
                return
            }
            let c = try #require(connection, "HAProxy on \(front) did not accept connections")
            let request = H2Request(method: "POST", authority: "api.push.apple.com:\(front)", path: "/3/device/\(token)",
                                    headers: [H2Header("authorization", "bearer \(jwt)"),
                                              H2Header("apns-topic", "com.example.app")],
                                    body: Array(#"{"aps":{"alert":"scaled"}}"#.utf8))
            statuses.append(try await c.send(request).status)
            c.close()
        }
        #expect(statuses == Array(repeating: 200, count: 6))
        for control in controls {
            let count = TestCommandTests.curl([control + "/_emulator/journal/count"])
            let n = (try? JSONSerialization.jsonObject(with: Data(count.utf8)) as? [String: Int])?["count"] ?? 0
            #expect(n > 0, "replica \(control) served none of the pushes")
        }
    }
}
