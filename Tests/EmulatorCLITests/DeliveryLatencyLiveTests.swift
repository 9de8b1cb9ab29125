import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Delivery off the request path, as a sender's CI sees it: `serve --delivery-latency fixed:500ms`, curl for the
/// device and the push, `POST /_emulator/settle` for the moment the device has it.
@Suite("Delivery latency: the 200 before the device")
struct DeliveryLatencyLiveTests {
    static func curl(_ arguments: [String]) async throws -> String {
        let run = try await SpawnedProcess.runToCompletion("/usr/bin/curl", ["-sS"] + arguments, timeout: .seconds(30))
        #expect(run.status == 0, "curl \(arguments): \(run.stderr)")
        return run.stdout
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func theAnswerComesLongBeforeTheDeviceAndSettleWaitsForIt() async throws {
        let served = try await ServedEmulator(["--delivery-latency", "fixed:500ms"])
        defer { served.stop() }
        let endpoints = served.endpoints
        let control = try #require(endpoints["control"])
        let port = try #require(endpoints["sandbox"].flatMap { Int($0.split(separator: ":").last ?? "") })

        _ = try await Self.curl(["-f", "-d", #"{"id":"phone","apps":[{"bundleId":"com.example.app"}]}"#,
                                 control + "/_emulator/devices"])
        let app = control + "/_emulator/devices/phone/apps/com.example.app"
        _ = try await Self.curl(["-f", "-d", #"{"call":"RequestAuthorization","options":[1,2,3]}"#, app + "/calls"])
        let call = try Self.json(try await Self.curl(["-f", "-d", #"{"call":"GetToken"}"#, app + "/calls"]))
        let token = try #require((call["result"] as? [String: Any])?["token"] as? String)
        let jwt = try await SpawnedProcess.runToCompletion(ExecutableTests.binary.path, ["token"],
                                                           directory: ExecutableTests.packageRoot, timeout: .seconds(30))
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Server time for the answer: from the request's last byte sent to the first byte back.
        let push = try await Self.curl([
            "-o", "/dev/null", "-D", "-", "-w", "\nserver %{time_pretransfer} %{time_starttransfer}", "--http2",
            "--cacert", "certs/ca.pem", "--resolve", "api.sandbox.push.apple.com:\(port):127.0.0.1",
            "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app",
            "-d", #"{"aps":{"alert":"hello"}}"#, "https://api.sandbox.push.apple.com:\(port)/3/device/\(token)",
        ].map { $0 == "certs/ca.pem" ? ExecutableTests.packageRoot.appendingPathComponent("certs/ca.pem").path : $0 })
        #expect(push.hasPrefix("HTTP/2 200"), "\(push)")
        let times = try #require(push.split(separator: "\n").last?.split(separator: " ").dropFirst().compactMap { Double($0) })
        try #require(times.count == 2, "\(push)")
        #expect(times[1] - times[0] < 0.25, "the 200 took \(times[1] - times[0]) s: it waited for the device")
        let apnsId = try #require(push.split(separator: "\r\n").first { $0.lowercased().hasPrefix("apns-id:") }?
            .split(separator: " ").last.map(String.init))

        let settleStart = Date()
        async let settling = Self.curl(["-f", "-X", "POST", control + "/_emulator/settle"])
        // While one control connection waits in settle, another is served (the control port has several threads).
        try await Task.sleep(for: .milliseconds(50))
        let healthStart = Date()
        #expect(try await Self.curl([control + "/_emulator/health"]) == #"{"status":"ok"}"#)
        let healthSeconds = Date().timeIntervalSince(healthStart)
        let settled = try Self.json(try await settling)
        let settleSeconds = Date().timeIntervalSince(settleStart)
        #expect(settled["settled"] as? Bool == true)
        #expect(settleSeconds < 8, "settle took \(settleSeconds) s for a 500 ms delivery latency")
        #expect(healthSeconds < settleSeconds - 0.05, "health took \(healthSeconds) s, settle \(settleSeconds) s")
        let deliveries = try Self.json(try await Self.curl([control + "/_emulator/deliveries?apnsId=\(apnsId)"]))
        let steps = try #require(deliveries["deliveries"] as? [[String: Any]])
        #expect(steps.compactMap { $0["fate"] as? String } == ["shown"])
        let journal = try Self.json(try await Self.curl([control + "/_emulator/journal?apnsId=\(apnsId)"]))
        let entry = try #require((journal["entries"] as? [[String: Any]])?.first, "\(journal)")
        let acceptedAt = try #require((entry["receivedAt"] as? NSNumber)?.int64Value, "\(entry)")
        let arrivedAt = try #require((steps.first?["at"] as? NSNumber)?.int64Value)
        #expect(arrivedAt - acceptedAt == 500, "the fate is stamped with its arrival: acceptance plus the latency")

        let metrics = try await Self.curl([control + "/metrics"])
        #expect(metrics.contains(#"apns_emulator_delivery_seconds_bucket{le="0.25"} 0"#), "\(metrics)")
        #expect(metrics.contains(#"apns_emulator_delivery_seconds_bucket{le="1"} 1"#), "\(metrics)")
        #expect(metrics.contains("apns_emulator_delivery_seconds_count 1"))
    }

    @Test func aDeliveryLatencyOnAManualClockIsRefusedNamingBothFlags() async throws {
        let run = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path, ["serve", "--manual-clock", "--delivery-latency", "fixed:5ms", "--ephemeral"],
            directory: ExecutableTests.packageRoot, timeout: .seconds(30))
        #expect(run.status == 64)
        #expect(run.stderr.contains("--delivery-latency needs the real clock: drop --manual-clock"), "\(run.stderr)")
    }

    @Test func aMalformedDeliveryLatencySaysWhatWasExpected() async throws {
        let run = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path, ["serve", "--delivery-latency", "500", "--ephemeral"],
            directory: ExecutableTests.packageRoot, timeout: .seconds(30))
        #expect(run.status == 64)
        #expect(run.stderr.contains("fixed:500ms"), "\(run.stderr)")
    }
}
