import Foundation
import SpawnedProcess
import Testing

/// The `scale` profile with a shared store, without Docker: Debian's `redis-server`, three replicas with
/// `--state-store`, HAProxy in TCP mode in front of their APNs and control ports. `apns-emulator bench` through
/// HAProxy registers its key and tokens through one replica and pushes through all of them.
@Suite("Scale profile: replicas sharing Redis behind HAProxy", .timeLimit(.minutes(3)))
struct SharedScaleProfileTests {
    @Test func benchThroughHAProxyRegistersThroughOneReplicaAndEveryReplicaAcceptsItsPushes() async throws {
        let redis = try await RedisServerProcess()
        defer { redis.stop() }
        var replicas: [ReplicaClusterTests.Replica] = []
        defer { for r in replicas { r.kill9() } }
        for id in ["r1", "r2", "r3"] { replicas.append(try await ReplicaClusterTests.Replica(id, store: redis.url)) }

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shared-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let apns = try ScaleProfileTests.freePort()
        let control = try ScaleProfileTests.freePort()
        func servers(_ listener: String) throws -> String {
            try replicas.enumerated().map { i, r in "    server r\(i + 1) 127.0.0.1:\(try r.served.port(listener))" }
                .joined(separator: "\n")
        }
        let config = dir.appendingPathComponent("haproxy.cfg")
        try """
            defaults
                mode tcp
                timeout connect 5s
                timeout client 30s
                timeout server 30s
            frontend apns
                bind 127.0.0.1:\(apns)
                default_backend apns_replicas
            backend apns_replicas
                balance roundrobin
            \(try servers("production"))
            frontend control
                bind 127.0.0.1:\(control)
                default_backend control_replicas
            backend control_replicas
                balance roundrobin
            \(try servers("control"))

            """.write(to: config, atomically: true, encoding: .utf8)
        let haproxy = SpawnedProcess()
        haproxy.executableURL = URL(fileURLWithPath: "/usr/sbin/haproxy")
        haproxy.arguments = ["-db", "-f", config.path]
        haproxy.standardOutput = FileHandle.nullDevice
        haproxy.standardError = FileHandle.nullDevice
        try haproxy.run()
        defer { if haproxy.isRunning { haproxy.terminate(); haproxy.waitUntilExit() } }
        let up = await ReplicaClusterTests.within(.seconds(10)) {
            await ReplicaClusterTests.curl(["http://127.0.0.1:\(control)/_emulator/health"]).contains("ok")
        }
        try #require(up != nil, "HAProxy did not forward the control port")

        let report = dir.appendingPathComponent("bench.json")
        let bench = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path,
            ["bench", "--target", "https://127.0.0.1:\(apns)", "--control", "http://127.0.0.1:\(control)",
             "--ca", "certs/ca.pem", "--connections", "6", "--streams", "10", "--count", "600", "--tokens", "4",
             "--json", report.path],
            directory: ExecutableTests.packageRoot, timeout: .seconds(120))
        #expect(bench.status == 0, "bench: \(bench.stderr.suffix(500))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect(json["succeeded"] as? Int == 600, "bench report: \(json["errors"] ?? "")")

        // Every replica answered some of them (six connections, round robin), and the cluster journal has all 600.
        let counted = await ReplicaClusterTests.within(.seconds(5)) {
            (await replicas[0].call("GET", "/_emulator/cluster/journal/count").json["count"] as? Int ?? 0) >= 600
        }
        #expect(counted != nil, "the cluster journal did not reach 600 entries")
        for r in replicas {
            let local = await r.call("GET", "/_emulator/journal/count?status=200").json["count"] as? Int ?? 0
            #expect(local > 0, "replica \(r.id) answered none of the bench's pushes")
        }
    }
}
