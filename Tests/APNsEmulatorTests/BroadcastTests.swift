import APNsEmulator
import APNsProtocol
import EmulatorControl
import EmulatorTesting
import Foundation
import H2Transport
import StateStore
import Testing

/// Broadcast channel management and broadcast sends (iOS 18 Live Activities) over TLS.
@Suite("Broadcast and channels")
struct BroadcastTests {
    func request(_ emu: TestEmulator, _ method: String, _ path: String, jwt: String, channel: String? = nil,
                 headers: [H2Header] = [], body: String = "") -> H2Request {
        var all = [H2Header("authorization", "bearer \(jwt)")]
        if let channel { all.append(H2Header("apns-channel-id", channel)) }
        return H2Request(method: method, authority: "api-manage-broadcast.push.apple.com", path: path,
                         headers: all + headers, body: Array(body.utf8))
    }

    func expectReason(_ r: H2Response, _ reason: APNsReason, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == reason.status, sourceLocation: sourceLocation)
        #expect(reasonBody(r)?.reason == reason.rawValue, "\(r.bodyText)", sourceLocation: sourceLocation)
        #expect(r["apns-request-id"] != nil, sourceLocation: sourceLocation)
    }

    static let createBody = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
    static let livePayload = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"1-0"}}}"#

    @Test func channelLifecycleAndBroadcastSend() async throws {
        try await withEmulator { emu in
            let jwt = try emu.sampleJWT()
            let c = try await emu.connect()
            let requestId = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"
            let created = try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt,
                                                   headers: [H2Header("apns-request-id", requestId)], body: Self.createBody))
            #expect(created.status == 201)
            #expect(created["apns-request-id"] == requestId)
            let channel = try #require(created["apns-channel-id"])
            #expect(Data(base64Encoded: channel) != nil)

            let read = try await c.send(request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt, channel: channel))
            #expect(read.status == 200)
            #expect(read.bodyText == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)

            let list = try await c.send(request(emu, "GET", "/1/apps/com.example.app/all-channels", jwt: jwt))
            #expect(list.status == 200)
            #expect((try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: [String]])?["channels"] == [channel])

            let sent = try await c.send(request(emu, "POST", "/4/broadcasts/apps/com.example.app", jwt: jwt, channel: channel,
                                                headers: [H2Header("apns-push-type", "LiveActivity"), H2Header("apns-priority", "10")],
                                                body: Self.livePayload))
            #expect(sent.status == 200, "\(sent.bodyText)")
            #expect(sent["apns-request-id"] != nil)

            let deleted = try await c.send(request(emu, "DELETE", "/1/apps/com.example.app/channels", jwt: jwt, channel: channel))
            #expect(deleted.status == 204)
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt, channel: channel)),
                         .channelNotRegistered)
            #expect(emu.services.journal.query().contains { $0.path == "/4/broadcasts/apps/com.example.app" && $0.status == 200 })
        }
    }

    @Test func channelAnswersAreCountedWithTheirOwnStatusAndARefusalAsARejection() async throws {
        try await withEmulator(configure: { $0.maximumChannelsPerApp = 1 }) { emu in
            let jwt = try emu.sampleJWT()
            let c = try await emu.connect()
            let created = try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt, body: Self.createBody))
            #expect(created.status == 201)
            expectReason(try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt, body: Self.createBody)),
                         .cannotCreateChannelConfig)
            let channel = try #require(created["apns-channel-id"])
            #expect(try await c.send(request(emu, "DELETE", "/1/apps/com.example.app/channels", jwt: jwt, channel: channel)).status == 204)
            let api = ControlAPI(services: emu.services, controlToken: nil)
            let metrics = String(decoding: api.handle(HTTP1Request(method: "GET", path: "/metrics")).body, as: UTF8.self)
            #expect(metrics.contains(#"apns_emulator_requests_total{status="400",reason="CannotCreateChannelConfig"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"apns_emulator_requests_total{status="201",reason=""} 1"#), "\(metrics)")
            #expect(metrics.contains(#"apns_emulator_requests_total{status="204",reason=""} 1"#), "\(metrics)")
            #expect(metrics.contains(#"apns_emulator_requests_total{status="200",reason=""} 0"#), "\(metrics)")
            let stats = try #require(try JSONSerialization.jsonObject(
                with: Data(api.handle(HTTP1Request(method: "GET", path: "/_emulator/stats")).body)) as? [String: Any])
            let connection = try #require((stats["connections"] as? [[String: Any]])?.first)
            #expect(connection["accepted"] as? Int == 2)
            #expect(connection["rejected"] as? Int == 1)
            let totals = try #require(stats["totals"] as? [String: Any])
            #expect(totals["succeeded"] as? Int == 2)
            #expect(totals["failed"] as? Int == 1)
            c.close()
        }
    }

    @Test func everyBroadcastReason() async throws {
        try await withEmulator(configure: { $0.maximumChannelsPerApp = 1 }) { emu in
            let jwt = try emu.sampleJWT()
            let c = try await emu.connect()
            let created = try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt, body: Self.createBody))
            let channel = try #require(created["apns-channel-id"])
            let send = "/4/broadcasts/apps/com.example.app"
            let live = [H2Header("apns-push-type", "LiveActivity")]
            expectReason(try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt, body: Self.createBody)),
                         .cannotCreateChannelConfig)
            expectReason(try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt, body: "{nope")),
                         .badRequestPayload)
            expectReason(try await c.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt,
                                                  body: #"{"message-storage-policy":7,"push-type":"LiveActivity"}"#)),
                         .badRequestParams)
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt)), .missingChannelId)
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt, channel: "%%%")),
                         .badChannelId)
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt,
                                                  channel: Data(repeating: 7, count: 16).base64EncodedString())),
                         .channelNotRegistered)
            expectReason(try await c.send(request(emu, "POST", send, jwt: jwt, channel: channel, body: Self.livePayload)),
                         .missingPushType)
            expectReason(try await c.send(request(emu, "POST", send, jwt: jwt, channel: channel,
                                                  headers: [H2Header("apns-push-type", "alert")], body: Self.livePayload)),
                         .invalidPushType)
            expectReason(try await c.send(request(emu, "POST", send, jwt: jwt, channel: channel, headers: live, body: "[]")),
                         .badRequestPayload)
            expectReason(try await c.send(request(emu, "POST", send, jwt: jwt, channel: channel, headers: live, body: "")),
                         .payloadEmpty)
            expectReason(try await c.send(request(emu, "POST", send, jwt: jwt, channel: channel, headers: live,
                                                  body: #"{"aps":{"x":""# + String(repeating: "y", count: 5200) + #""}}"#)),
                         .payloadTooLarge)
            expectReason(try await c.send(request(emu, "POST", "/4/broadcasts/apps/com.example.other", jwt: jwt, channel: channel,
                                                  headers: live, body: Self.livePayload)), .topicMismatch)
            expectReason(try await c.send(request(emu, "PUT", "/1/apps/com.example.app/channels", jwt: jwt)), .methodNotAllowed)
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/nothing", jwt: jwt)), .badPath)
            emu.services.channels.setBroadcastEnabled(false, bundleId: "com.example.app")
            expectReason(try await c.send(request(emu, "GET", "/1/apps/com.example.app/all-channels", jwt: jwt)),
                         .featureNotEnabled)
            expectReason(try await emu.connect().send(request(emu, "GET", "/1/apps/com.example.app/all-channels", jwt: "a.b.c")),
                         .invalidProviderToken)
        }
    }

    @Test func faultsAnswerBroadcastsLikeDevicePushes() async throws {
        try await withEmulator { emu in
            let now = emu.clock.now()
            try emu.services.faults.add(FaultRule(id: "b", topic: "com.example.app", action: .reason("Unregistered"),
                                                  remaining: 1, createdAt: now))
            let r = try await emu.connect().send(request(emu, "GET", "/1/apps/com.example.app/all-channels",
                                                         jwt: try emu.sampleJWT()))
            expectReason(r, .unregistered)
            #expect(reasonBody(r)?.timestamp == now)
        }
    }

    @Test func channelsBelongToTheirEnvironment() async throws {
        try await withEmulator { emu in
            let jwt = try emu.sampleJWT()
            let prod = try await emu.connect()
            let channel = try #require(try await prod.send(request(emu, "POST", "/1/apps/com.example.app/channels", jwt: jwt,
                                                                   body: Self.createBody))["apns-channel-id"])
            let sandbox = try await emu.connect(.sandbox)
            var r = request(emu, "GET", "/1/apps/com.example.app/channels", jwt: jwt, channel: channel)
            r.headers = H2HeaderList(Array(r.headers).map { $0.name == ":authority" ? H2Header(":authority", "api-manage-broadcast.sandbox.push.apple.com") : $0 })
            expectReason(try await sandbox.send(r), .channelNotRegistered)
        }
    }
}
