import APNsEmulator
import Foundation
import Testing

@testable import VirtualDevices

/// The managed push SDK over time: sessions, an ingest that is down or refuses, the host's completion handler,
/// background receipts from the service extension, the in-app banner and the SDK's buttons.
@Suite("Managed push SDK: sessions, ingest, completion, receipts, banners")
struct ManagedSDKLifecycleTests {
    static let tracked = ManagedSDKTests.tracked

    func sdk(_ h: DeviceHarness, _ app: String) -> [String: Any] { h.call("GET", app + "/sdk").json }

    func records(_ h: DeviceHarness, _ type: String) -> [[String: Any]] {
        h.call("GET", "/_emulator/sdk/records", query: [("type", type)]).json["records"] as? [[String: Any]] ?? []
    }

    func decisions(_ h: DeviceHarness, _ app: String) -> [String] {
        (sdk(h, app)["decisions"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
    }

    @Test func aSessionStartsOnlyOnARealForegroundEntryAndCountsForegroundTime() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","kits":{"appVersion":"2.3","language":"ko-KR"}}"#)
            _ = try h.authorizedToken(app)  // plugin calls run the app's code: no session
            #expect(records(h, "SESSION").isEmpty)
            h.action(app, #"{"action":"foreground"}"#)
            h.advance(seconds: 90)
            h.action(app, #"{"action":"background"}"#)
            h.action(app, #"{"action":"foreground"}"#)
            h.action(app, #"{"action":"foreground"}"#)  // already in the foreground: no new session
            let sessions = records(h, "SESSION")
            #expect(sessions.count == 2, "\(sessions)")
            #expect(sessions.last?["sessionCount"] as? Int == 2)
            #expect(sessions.last?["foregroundMillis"] as? Int == 90_000)
            #expect(sessions.last?["previousSessionAt"] as? Int64 == sessions.first?["at"] as? Int64)
            #expect(sessions.last?["firstSessionAt"] as? Int64 == sessions.first?["at"] as? Int64)
            #expect(sessions.last?["appVersion"] as? String == "2.3")
            #expect(sessions.last?["language"] as? String == "ko-KR")

            // A plugin call launches the app into the foreground without a session; the user's next entry starts one.
            let other = try h.device(id: "tablet", app: #"{"bundleId":"com.example.app","kits":{}}"#)
            h.pluginCall(other, #"{"call":"GetNotificationSettings"}"#)
            #expect(h.appState(other)["lifecycle"] as? String == "foreground")
            #expect(h.call("GET", other + "/sdk").json["sessionCount"] as? Int == 0)
            h.action(other, #"{"action":"foreground"}"#)
            #expect(h.call("GET", other + "/sdk").json["sessionCount"] as? Int == 1)
        }
    }

    @Test func anIngestThatIsDownKeepsRecordsAndAPermanentFailureDropsThem() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            #expect(h.call("PUT", "/_emulator/sdk/ingest", #"{"status":503}"#).status == 200)
            let app = try h.device(app: #"{"bundleId":"com.example.app","kits":{}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"foreground"}"#)
            #expect(sdk(h, app)["syncState"] as? String == "queued", "registerAPNsToken is only .queued locally")
            _ = try await h.accepted(token, payload: Self.tracked)
            #expect(records(h, "RECEIVED").isEmpty)
            #expect((sdk(h, app)["outbox"] as? [Any])?.isEmpty == false)
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":200}"#)
            h.advance(seconds: 2)
            #expect(sdk(h, app)["syncState"] as? String == "synced")
            let received = records(h, "RECEIVED")
            #expect(received.count == 1)
            #expect((received.first?["attempts"] as? Int ?? 0) >= 2, "kept and retried")

            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":401}"#)
            _ = try await h.accepted(token, payload: Self.tracked)
            h.advance(seconds: 5)
            #expect(records(h, "RECEIVED").count == 1)
            #expect((sdk(h, app)["outbox"] as? [Any])?.isEmpty == true, "a 401 is not retried")
            #expect(decisions(h, app).contains("permanentFailure"))

            // A record kept while the ingest was down, which then answers 401, is dropped at its retry.
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":503}"#)
            _ = try await h.accepted(token, payload: Self.tracked)
            #expect((sdk(h, app)["outbox"] as? [Any])?.count == 1)
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":401}"#)
            h.advance(seconds: 2)
            #expect((sdk(h, app)["outbox"] as? [Any])?.isEmpty == true)
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":200}"#)
            h.advance(seconds: 2)
            #expect(records(h, "RECEIVED").count == 1, "dropped, not delivered later")
            #expect(h.call("PUT", "/_emulator/sdk/ingest", #"{"status":302}"#).status == 400)
        }
    }

    @Test func withoutPersistenceARecordTheIngestCouldNotTakeIsLost() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","kits":{"persistNotificationEvents":false}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"foreground"}"#)
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":500}"#)
            _ = try await h.accepted(token, payload: Self.tracked)
            h.call("PUT", "/_emulator/sdk/ingest", #"{"status":200}"#)
            h.advance(seconds: 2)
            #expect(records(h, "RECEIVED").isEmpty)
            #expect(decisions(h, app).contains("lost"))
        }
    }

    @Test func aCompletionHandlerNeverCalledShowsNothingAndOneCalledTwiceCrashesTheApp() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let never = try h.device(id: "a", app: #"{"bundleId":"com.example.app","kits":{"completionHandler":"never"}}"#)
            let neverToken = try h.authorizedToken(never)
            h.action(never, #"{"action":"foreground"}"#)
            let hidden = try await h.accepted(neverToken, payload: Self.tracked)
            #expect(h.fates(hidden).last == "suppressed")
            #expect(decisions(h, never).contains("completionHandlerMisused"))

            let twice = try h.device(id: "b", app: #"{"bundleId":"com.example.app","kits":{"completionHandler":"twice"}}"#)
            let twiceToken = try h.authorizedToken(twice)
            h.action(twice, #"{"action":"foreground"}"#)
            _ = try await h.accepted(twiceToken, payload: Self.tracked)
            #expect(h.appState(twice)["lifecycle"] as? String == "notRunning", "the exception ended the process")
        }
    }

    @Test func theExtensionReportsAReceiptOnlyWithConsentItCanRead() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let payload = #"{"aps":{"alert":{"title":"Hi"},"mutable-content":1},"kits_delivery_id":"r-1","kits_v":1,"kits_track_events":true,"kits_receipt_token":"t"}"#
            // Through an App Group the extension reads the app's refusal; its own stored "allowed" does not change.
            let shared = try h.device(id: "shared", app: #"{"bundleId":"com.example.app","kits":{"receipts":"appGroup"}}"#)
            let own = try h.device(id: "own", app: #"{"bundleId":"com.example.app","kits":{"receipts":"granted"}}"#)
            let unknown = try h.device(id: "unknown", app: #"{"bundleId":"com.example.app","kits":{"receipts":"unknown"}}"#)
            var tokens: [String] = []
            for app in [shared, own, unknown] {
                tokens.append(try h.authorizedToken(app))
                h.action(app, #"{"action":"setCollectionEnabled","enabled":false}"#)
                h.action(app, #"{"action":"background"}"#)
                _ = try await h.accepted(tokens.last!, payload: payload)
            }
            h.advance(seconds: 31)
            let receipts = records(h, "RECEIVED")
            #expect(receipts.compactMap { $0["deviceId"] as? String } == ["own"], "\(receipts)")
            #expect(receipts.first?["source"] as? String == "serviceExtension")
            #expect(decisions(h, shared).contains("noReceiptConsent"))
            #expect(decisions(h, unknown).contains("noReceiptConsent"))
            // An alert without the report token is not a receipt, whatever the consent.
            h.action(own, #"{"action":"setCollectionEnabled","enabled":true}"#)
            h.action(own, #"{"action":"background"}"#)
            _ = try await h.accepted(tokens[1], payload: Self.tracked.replacingOccurrences(of: "\"Sale\"}", with: "\"Sale\"},\"mutable-content\":1"))
            h.advance(seconds: 31)
            #expect(records(h, "RECEIVED").count == 1)
        }
    }

    @Test func preventDefaultHandsTheNotificationToTheAppsBannerWhoseRealClickRecordsOnlyAClick() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","kits":{"preventDefault":true}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"foreground"}"#)
            #expect(h.action(app, #"{"action":"recordBannerClick"}"#).status == 409, "no banner yet")
            let id = try await h.accepted(token, payload: Self.tracked)
            #expect(h.fates(id).last == "suppressed", "the OS presentation was prevented")
            #expect(records(h, "CLICKED").isEmpty, "showing the banner records nothing")
            #expect(records(h, "RECEIVED").count == 1)
            #expect(h.action(app, #"{"action":"recordBannerClick"}"#).status == 200)
            #expect(h.action(app, #"{"action":"recordBannerClick","deliveryId":"d-1"}"#).status == 404, "one click per banner")
            let clicked = records(h, "CLICKED")
            #expect(clicked.count == 1)
            #expect(clicked.first?["source"] as? String == "inAppBanner")
            #expect(records(h, "RECEIVED").count == 1, "a click makes no received record")
        }
    }

    @Test func actionForIsTheSDKsOwnButtonOnlyAndHostRegistrationsCanDropOrKeepItsCategories() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: #"""
                {"bundleId":"com.example.app","categories":[{"identifier":"HOST","actions":[{"identifier":"REPLY"}]}],
                 "kits":{"categories":[{"identifier":"KITS","actions":[{"identifier":"BUY","foreground":true}]}]}}
                """#)
            let token = try h.authorizedToken(app)
            func send(_ category: String, _ delivery: String) async throws -> String {
                _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x","category":"\#(category)"},"kits_delivery_id":"\#(delivery)","kits_v":1,"kits_track_events":true}"#)
                return try #require(h.notificationIds(app).first)
            }
            h.action(app, #"{"action":"action","notificationId":"\#(try await send("KITS", "k1"))","actionId":"BUY"}"#)
            h.action(app, #"{"action":"background"}"#)
            h.action(app, #"{"action":"action","notificationId":"\#(try await send("HOST", "k2"))","actionId":"REPLY"}"#)
            h.action(app, #"{"action":"background"}"#)
            h.action(app, #"{"action":"tap","notificationId":"\#(try await send("KITS", "k3"))"}"#)
            let clicks = records(h, "CLICKED").map { ($0["deliveryId"] as? String ?? "", $0["sdkAction"] as? String) }
            #expect(clicks.map(\.0) == ["k1", "k2", "k3"])
            #expect(clicks.map(\.1) == ["BUY", nil, nil], "nil for another category's button and the default tap")

            // The host registers its own set: without preserving, the SDK's buttons are gone.
            h.action(app, #"{"action":"setNotificationCategories","categories":[{"identifier":"HOST","actions":[{"identifier":"REPLY"}]}]}"#)
            h.action(app, #"{"action":"background"}"#)
            let lost = try await send("KITS", "k4")
            #expect(h.action(app, #"{"action":"action","notificationId":"\#(lost)","actionId":"BUY"}"#).status == 409)
            h.action(app, #"{"action":"setNotificationCategories","preservingSDK":true,"categories":[{"identifier":"HOST","actions":[{"identifier":"REPLY"}]}]}"#)
            #expect(h.action(app, #"{"action":"action","notificationId":"\#(lost)","actionId":"BUY"}"#).status == 200)
        }
    }
}
