import APNsEmulator
import Foundation
import Testing

@testable import VirtualDevices

/// Apps hosting the managed push SDK: registration on every launch, which notifications it claims, which records
/// it sends its ingest and when not, and its own category limits.
@Suite("Managed push SDK")
struct ManagedSDKTests {
    static let tracked = #"{"aps":{"alert":{"title":"Sale"}},"kits_delivery_id":"d-1","kits_v":1,"kits_track_events":true}"#

    func records(_ h: DeviceHarness, _ type: String? = nil) -> [[String: Any]] {
        h.call("GET", "/_emulator/sdk/records", query: type.map { [("type", $0)] } ?? []).json["records"] as? [[String: Any]] ?? []
    }

    func decisions(_ h: DeviceHarness, _ app: String) -> [String] {
        (h.call("GET", app + "/sdk").json["decisions"] as? [[String: Any]] ?? []).compactMap { $0["outcome"] as? String }
    }

    /// A Kits app, authorized, with its token, in the foreground.
    func foregroundApp(_ h: DeviceHarness, kits: String = "{}", extra: String = "") throws -> (app: String, token: String) {
        let app = try h.device(app: #"{"bundleId":"com.example.app","kits":\#(kits)\#(extra)}"#)
        let token = try h.authorizedToken(app)
        h.action(app, #"{"action":"foreground"}"#)
        return (app, token)
    }

    @Test func everyLaunchRegistersThatLaunchsTokenForProductionByDefault() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h)
            h.action(app, #"{"action":"forceQuit"}"#)
            h.action(app, #"{"action":"launch"}"#)
            let tokens = records(h, "TOKEN")
            #expect(tokens.count == 3, "the launch, GetToken, the relaunch: \(tokens)")
            #expect(h.eventTypes(app).filter { $0 == "TokenRefreshed" }.count == 1,
                    "the SDK's own launch registrations do not reach the APNs add-on: \(h.eventTypes(app))")
            #expect(tokens.allSatisfy { $0["token"] as? String == token && $0["environment"] as? String == "production" })
            // A development-signed app that did not pass .sandbox: its token is a sandbox one, so the production
            // push the backend would send is refused.
            let refused = try await h.push(token, environment: .production)
            #expect(refused.status == 400)
            #expect(refused.bodyText.contains("BadDeviceToken"), "\(refused.bodyText)")
        }
    }

    @Test func withoutTheAppDelegateBridgeTheSDKNeverGetsTheToken() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, _) = try foregroundApp(h, kits: #"{"appDelegateBridge":false,"apnsEnvironment":"sandbox"}"#)
            #expect(records(h, "TOKEN").isEmpty)
            #expect(decisions(h, app).contains("notWired"))
        }
    }

    @Test func willPresentOfItsOwnTrackedNotificationIsReceivedAndTheHostsHandlerDoesNotGetIt() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h)
            let id = try await h.accepted(token, payload: Self.tracked)
            let received = records(h, "RECEIVED")
            #expect(received.count == 1)
            #expect(received.first?["deliveryId"] as? String == "d-1")
            #expect(received.first?["source"] as? String == "willPresent")
            #expect(!h.eventTypes(app).contains("NotificationPresented"), "claimed: the host's plugin never saw it")
            #expect(h.fates(id).last == "shown")
        }
    }

    @Test func aNotificationWithoutTheExactMarkerGoesToTheHostsHandlerAndRecordsNothing() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h)
            for payload in [#"{"aps":{"alert":"a"},"kits_delivery_id":"d-2","kits_track_events":true}"#,
                            #"{"aps":{"alert":"b"},"kits_delivery_id":"d-3","kits_v":2,"kits_track_events":true}"#,
                            #"{"aps":{"alert":"c"},"kits_delivery_id":"","kits_v":1,"kits_track_events":true}"#] {
                _ = try await h.accepted(token, payload: payload)
            }
            #expect(records(h, "RECEIVED").isEmpty)
            #expect(h.eventTypes(app).filter { $0 == "NotificationPresented" }.count == 3)
            #expect(decisions(h, app).filter { $0 == "notOurs" }.count == 3)
        }
    }

    @Test func shouldDisplayFalseKeepsItsNotificationOffTheForegroundScreenButStillRecords() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (_, token) = try foregroundApp(h, kits: #"{"shouldDisplay":false}"#)
            let id = try await h.accepted(token, payload: Self.tracked)
            #expect(h.fates(id).last == "suppressed")
            #expect(records(h, "RECEIVED").count == 1, "records never change display, and display never makes a record")
        }
    }

    @Test func aBackgroundNotificationShownByTheOSIsNoReceiptAndItsTapIsOnlyAClick() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h)
            h.action(app, #"{"action":"background"}"#)
            let id = try await h.accepted(token, payload: Self.tracked)
            #expect(h.fates(id).last == "shown")
            #expect(records(h, "RECEIVED").isEmpty, "display is not a receipt")
            let notification = try #require(h.notificationIds(app).first)
            h.action(app, #"{"action":"tap","notificationId":"\#(notification)"}"#)
            let clicked = records(h, "CLICKED")
            #expect(clicked.count == 1)
            #expect(clicked.first?["actionIdentifier"] as? String == "com.apple.UNNotificationDefaultActionIdentifier")
            #expect(records(h, "RECEIVED").isEmpty, "a click never makes a received record")
            #expect(!h.eventTypes(app).contains("NotificationOpened"), "claimed: the host's plugin never saw the response")
        }
    }

    @Test func aDismissalIsNotAClick() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h, extra: #","categories":[{"identifier":"C","customDismissAction":true}]"#)
            h.action(app, #"{"action":"background"}"#)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x","category":"C"},"kits_delivery_id":"d-9","kits_v":1,"kits_track_events":true}"#)
            let notification = try #require(h.notificationIds(app).first)
            h.action(app, #"{"action":"dismiss","notificationId":"\#(notification)"}"#)
            #expect(records(h, "CLICKED").isEmpty)
            #expect(decisions(h, app).last == "dismissal")
        }
    }

    @Test func consentAndTheEventsOptionGateRecordsAndAnExplicitFalseStaysOff() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h, kits: #"{"collectionEnabled":false}"#)
            _ = try await h.accepted(token, payload: Self.tracked)
            #expect(records(h, "RECEIVED").isEmpty)
            #expect(decisions(h, app).last == "collectionDisabled")
            #expect(h.action(app, #"{"action":"setCollectionEnabled","enabled":true}"#).status == 200)
            _ = try await h.accepted(token, payload: Self.tracked)
            #expect(records(h, "RECEIVED").count == 1, "consent given: records start")
            h.action(app, #"{"action":"setCollectionEnabled","enabled":false}"#)
            h.action(app, #"{"action":"forceQuit"}"#)
            h.action(app, #"{"action":"launch"}"#)
            _ = try await h.accepted(token, payload: Self.tracked)
            #expect(records(h, "RECEIVED").count == 1, "the stored refusal outlives the process")
            #expect(h.call("GET", app + "/sdk").json["collectionEnabled"] as? Bool == false)

            let other = try h.device(id: "tablet", app: #"{"bundleId":"com.example.app","kits":{"notificationEventsEnabled":false}}"#)
            let otherToken = try h.authorizedToken(other)
            h.action(other, #"{"action":"foreground"}"#)
            h.action(other, #"{"action":"setCollectionEnabled","enabled":true}"#)
            _ = try await h.accepted(otherToken, payload: Self.tracked)
            #expect(records(h, "RECEIVED").count == 1, "enabling collection does not switch an explicit false back on")
            #expect(decisions(h, other).last == "eventsDisabled")
        }
    }

    @Test func withoutTrackEventsInTheMessageNothingIsRecorded() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let (app, token) = try foregroundApp(h)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x"},"kits_delivery_id":"d-1","kits_v":1}"#)
            #expect(records(h, "RECEIVED").isEmpty)
            #expect(decisions(h, app).last == "notTracked")
        }
    }

    @Test func theSDKsCategoryLimitsApplyOnlyToItsOwnRegistrations() async throws {
        try await DeviceHarness.run { h in
            func install(_ id: String, _ app: String) -> Reply {
                h.call("POST", "/_emulator/devices", #"{"id":"\#(id)","apps":[\#(app)]}"#)
            }
            let action = #"{"identifier":"A"}"#
            let many = (0..<33).map { #"{"identifier":"c\#($0)","actions":[\#(action)]}"# }.joined(separator: ",")
            let cases: [(String, String)] = [
                (#"{"bundleId":"com.a","kits":{"categories":[\#(many)]}}"#, "kits.categories"),
                (#"{"bundleId":"com.a","kits":{"categories":[{"identifier":"K","actions":[]}]}}"#, "kits.categories[0].actions"),
                (#"{"bundleId":"com.a","kits":{"categories":[{"identifier":"K","actions":[{"identifier":"1"},{"identifier":"2"},{"identifier":"3"},{"identifier":"4"}]}]}}"#,
                 "kits.categories[0].actions"),
                (#"{"bundleId":"com.a","kits":{"categories":[{"identifier":"K","actions":[{"identifier":"R","textInput":true}]}]}}"#,
                 "kits.categories[0].actions[0].textInput"),
                (#"{"bundleId":"com.a","categories":[{"identifier":"K"}],"kits":{"categories":[{"identifier":"K","actions":[\#(action)]}]}}"#,
                 "kits.categories[0].identifier"),
                (#"{"bundleId":"com.a","kits":{"apnsEnvironment":"staging"}}"#, "kits.apnsEnvironment"),
                (#"{"bundleId":"com.a","kits":{"colectionEnabled":false}}"#, "kits.colectionEnabled"),
            ]
            for (i, (app, field)) in cases.enumerated() {
                let r = install("d\(i)", app)
                #expect(r.status == 400, "\(field): \(r.text)")
                #expect((r.json["field"] as? String)?.hasSuffix(field) == true, "\(field): \(r.text)")
            }
            // The host's own categories have no such limits; the SDK's are registered beside them.
            let fiveActions = (0..<5).map { #"{"identifier":"a\#($0)"}"# }.joined(separator: ",")
            let hostCategories = (0..<40).map { #"{"identifier":"h\#($0)","actions":[\#(fiveActions)]}"# }.joined(separator: ",")
            let ok = install("fine", #"{"bundleId":"com.a","categories":[\#(hostCategories)],"kits":{"categories":[{"identifier":"K","actions":[\#(action)]}]}}"#)
            #expect(ok.status == 201, "\(ok.text)")
            let categories = (h.appState(h.appPath("fine", "com.a"))["categories"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
            #expect(categories.count == 41 && categories.last == "K")
            #expect(h.action(h.appPath("fine", "com.a"), #"{"action":"setCollectionEnabled","enabled":true}"#).status == 200)
            let plain = try h.device(id: "plain")
            #expect(h.action(plain, #"{"action":"setCollectionEnabled","enabled":true}"#).status == 409)
            #expect(h.call("GET", plain + "/sdk").status == 404)
        }
    }
}
