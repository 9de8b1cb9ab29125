import APNsProtocol
import Foundation
import H2Transport
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

/// Load shaping and live metrics over real TLS + HTTP/2, driven through the control API as a user would.
@Suite("Shaping and metrics", .timeLimit(.minutes(2)))
struct ShapingAndMetricsTests {
    static func control(_ emu: EmulatorServices) -> ControlAPI { ControlAPI(services: emu, controlToken: nil) }

    static func put(_ api: ControlAPI, _ body: String) -> HTTP1Response {
        api.handle(HTTP1Request(method: "PUT", path: "/_emulator/shaping", body: Array(body.utf8)))
    }

    @Test func pushTypeCountersFollowTheDeclarationOrder() {
        for (i, t) in PushType.allCases.enumerated() { #expect(EmulatorMetrics.pushTypeIndex(t) == i) }
    }

    @Test func brownoutAnswersServiceUnavailableOrInternalServerError() async throws {
        try await withEmulator { emu in
            let api = Self.control(emu.services)
            #expect(Self.put(api, #"{"brownoutShare":1}"#).status == 200)
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt)), .serviceUnavailable)
            #expect(Self.put(api, #"{"brownoutStatus":500}"#).status == 200)
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt)), .internalServerError)
            #expect(Self.put(api, #"{"brownoutShare":0}"#).status == 200)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
        }
    }

    @Test func connectionRateLimitAnswersTooManyRequestsWithinTheSecond() async throws {
        try await withEmulator(configure: { $0.shaping.connectionRateLimit = 3 }) { emu in
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            for _ in 0..<3 { #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200) }
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt)), .tooManyRequests)
            emu.clock.advance(bySeconds: 1)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200, "a new window")
        }
    }

    @Test func connectionIsRecycledWithGoAwayAfterItsQuota() async throws {
        try await withEmulator(configure: { $0.shaping.goAwayAfterRequests = 2 }) { emu in
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(await c.lastGoAway() == nil)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200, "the quota's last request is answered")
            var goAway = await c.lastGoAway()
            for _ in 0..<50 where goAway == nil {
                try await Task.sleep(for: .milliseconds(20))
                goAway = await c.lastGoAway()
            }
            #expect(goAway?.errorCode == 0)
            let debug = String(decoding: goAway?.debugData ?? [], as: UTF8.self)
            #expect(debug.contains("ConnectionRecycled"))
        }
    }

    @Test func fixedLatencyDelaysEveryAnswerAtLeastThatLong() async throws {
        try await withEmulator(configure: { $0.shaping.latency = .fixed(ms: 150) }) { emu in
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            let start = Date()
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(Date().timeIntervalSince(start) >= 0.15)
        }
    }

    @Test func streamLimitChangesLiveForOpenAndNewConnections() async throws {
        try await withEmulator { emu in
            let api = Self.control(emu.services)
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(Self.put(api, #"{"maxConcurrentStreams":7}"#).status == 200)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            var seen = await c.remoteMaxConcurrentStreams()
            for _ in 0..<50 where seen != 7 {
                try await Task.sleep(for: .milliseconds(20))
                seen = await c.remoteMaxConcurrentStreams()
            }
            #expect(seen == 7, "the open connection was told at its next request")
            let fresh = try await emu.connect()
            #expect(try await fresh.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(await fresh.remoteMaxConcurrentStreams() == 7, "new connections start with it")
        }
    }

    @Test func streamLimitLoweredToOneCanBeRaisedAgain() async throws {
        try await withEmulator { emu in
            let api = Self.control(emu.services)
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            #expect(Self.put(api, #"{"maxConcurrentStreams":1}"#).status == 200)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(Self.put(api, #"{"maxConcurrentStreams":50}"#).status == 200)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            var seen = await c.remoteMaxConcurrentStreams()
            for _ in 0..<50 where seen != 50 {
                try await Task.sleep(for: .milliseconds(20))
                seen = await c.remoteMaxConcurrentStreams()
            }
            #expect(seen == 50)
        }
    }

    @Test func badShapingInputIs400AndChangesNothing() async throws {
        try await withEmulator { emu in
            let api = Self.control(emu.services)
            let before = emu.services.shaping.current
            for (body, field) in [(#"{"brownoutShare":2}"#, "brownoutShare"), (#"{"latency":{"type":"gamma"}}"#, "latency.type"),
                                  (#"{"latency":{"type":"uniform","minMs":5,"maxMs":1}}"#, "latency.maxMs"),
                                  (#"{"maxConcurrentStreams":0}"#, "maxConcurrentStreams"), (#"{"brownoutStatus":404}"#, "brownoutStatus"),
                                  (#"{"latncy":{}}"#, "latncy")] {
                let r = Self.put(api, body)
                #expect(r.status == 400, "\(body)")
                let json = try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]
                #expect(json?["field"] as? String == field, "\(body)")
            }
            #expect(emu.services.shaping.current == before)
        }
    }

    @Test func metricsAndStatsReportWhatTheSenderDid() async throws {
        try await withEmulator { emu in
            let api = Self.control(emu.services)
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            let token = try emu.issueToken()
            for _ in 0..<3 { #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200) }
            expectRejection(try await c.send(emu.push(to: String(repeating: "ab", count: 32), jwt: jwt)), .badDeviceToken)
            let metrics = String(decoding: api.handle(HTTP1Request(method: "GET", path: "/metrics")).body, as: UTF8.self)
            #expect(metrics.contains(#"apns_emulator_requests_total{status="200",reason=""} 3"#), "\(metrics)")
            #expect(metrics.contains(#"apns_emulator_requests_total{status="400",reason="BadDeviceToken"} 1"#))
            #expect(metrics.contains(#"apns_emulator_requests_by_type_total{push_type="alert",environment="production"} 4"#))
            #expect(metrics.contains("apns_emulator_response_seconds_count 4"))
            #expect(metrics.contains(#"apns_emulator_response_seconds_bucket{le="+Inf"} 4"#))
            #expect(metrics.contains("apns_emulator_open_connections 1"))
            #expect(metrics.contains("apns_emulator_token_refreshes_total 1"))
            #expect(metrics.contains(#"apns_emulator_jwt_cache_total{result="miss"} 1"#))
            #expect(metrics.contains("apns_emulator_journal_entries 4"))
            #expect(metrics.contains(#"apns_emulator_build_info{version="\#(EmulatorVersion.current)"} 1"#))
            // The process series, as every Prometheus client exports them: plausible values, not just names.
            func value(_ name: String) -> Double? {
                metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000, "\(metrics)")
            #expect((value("process_cpu_seconds_total") ?? -1) >= 0)
            #expect((value("process_open_fds") ?? 0) >= 3)
            let started = value("process_start_time_seconds") ?? 0
            #expect(abs(started - Date().timeIntervalSince1970) < 3_600, "this process started within the hour: epoch seconds, not since boot")

            let stats = try #require(try JSONSerialization.jsonObject(
                with: Data(api.handle(HTTP1Request(method: "GET", path: "/_emulator/stats")).body)) as? [String: Any])
            let connection = try #require((stats["connections"] as? [[String: Any]])?.first)
            #expect(connection["requests"] as? Int == 4)
            #expect(connection["accepted"] as? Int == 3)
            #expect(connection["rejected"] as? Int == 1)
            #expect(connection["tokenUpdates"] as? Int == 1)
            #expect((connection["concurrencyHighWater"] as? Int ?? 0) >= 1)
            #expect((stats["totals"] as? [String: Any])?["requests"] as? Int == 4)
            c.close()
        }
    }
}
