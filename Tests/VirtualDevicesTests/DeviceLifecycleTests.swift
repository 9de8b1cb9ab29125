import APNsEmulator
import APNsProtocol
import H2Transport
import Testing

@testable import VirtualDevices

/// Installs ending, processes ending, and what the device model must not forget or invent on the way.
@Suite("Devices: installs, processes and edge cases (end to end)")
struct DeviceLifecycleTests {
    @Test func hugeExpirationToAnOfflineDeviceIsStoredNotACrash() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let id = try await h.accepted(token, headers: [H2Header("apns-expiration", "9223372036854775807")])
            #expect(h.fates(id) == ["stored"])
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.fates(id) == ["stored", "shown"])
        }
    }

    @Test func uninstallDropsWhatAPNsHeldAndRecordsIt() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let id = try await h.accepted(token)
            #expect(h.call("DELETE", app).status == 204)
            #expect(h.fates(id) == ["stored", "dropped"])
        }
    }

    /// A token's owner remembers where its app sits in the farm (dictionary positions) until devices or apps
    /// are added or removed: pushes keep reaching the right app across installs, uninstalls and other devices
    /// coming and going (many of each, so the dictionaries grow and rehash).
    @Test func pushesReachTheirAppWhileAppsAndDevicesComeAndGo() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            var shown = 0
            func pushAndCheck(_ step: String) async throws {
                let id = try await h.accepted(token)
                shown += 1
                #expect(h.fates(id) == ["shown"], "\(step)")
                #expect(h.notificationIds(app).count == shown, "\(step)")
            }
            try await pushAndCheck("first")
            for i in 0..<20 {
                #expect(h.call("POST", "/_emulator/devices/phone/apps", #"{"bundleId":"com.example.other\#(i)"}"#).status == 201)
                _ = try h.device(id: "other-\(i)")
            }
            try await pushAndCheck("after installs and devices")
            for i in stride(from: 0, to: 20, by: 2) {
                #expect(h.call("DELETE", "/_emulator/devices/phone/apps/com.example.other\(i)").status == 204)
                #expect(h.call("DELETE", "/_emulator/devices/other-\(i)").status == 204)
            }
            try await pushAndCheck("after removals")
        }
    }

    @Test func pushesReachTheirAppWhileOtherTokensAreIssuedAndEnded() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            var ids: [String] = []
            ids.append(try await h.accepted(token))
            var others: [String] = []
            for i in 0..<20 { others.append(try h.authorizedToken(try h.device(id: "other-\(i)"))) }
            ids.append(try await h.accepted(token))
            for i in stride(from: 0, to: 20, by: 2) { #expect(h.call("DELETE", "/_emulator/devices/other-\(i)").status == 204) }
            ids.append(try await h.accepted(token))
            #expect(h.notificationIds(app) == ids.reversed())
            #expect(ids.allSatisfy { h.fates($0) == ["shown"] })
            let other = try await h.accepted(others[1])
            #expect(h.notificationIds(h.appPath("other-1", "com.example.app")) == [other])
            #expect(h.notificationIds(app).count == 3)
        }
    }

    @Test func removingADeviceMakesItsTokens410WithTheRemovalTime() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.emu.clock.advance(bySeconds: 2)
            let removedAt = h.emu.clock.now()
            #expect(h.call("DELETE", "/_emulator/devices/phone").status == 204)
            let r = try await h.push(token)
            #expect(r.status == 410)
            #expect(r.bodyText.contains("\(removedAt)"))
        }
    }

    @Test func tokenDeletedInTheRegistryIsReplacedAtTheNextRegistration() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let first = try h.authorizedToken(app)
            #expect(h.call("DELETE", "/_emulator/tokens/\(first)").status == 204)
            let second = try h.authorizedToken(app)
            #expect(second != first)
            _ = try await h.accepted(second)
            #expect(h.appState(app)["previousTokens"] as? [String] == [first])
        }
    }

    @Test func getTokenCompletesBeforeTokenRefreshedFires() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let call = h.pluginCall(app, #"{"call":"GetToken"}"#)
            let event = try #require(h.events(app).first)
            #expect(event["type"] as? String == "TokenRefreshed")
            #expect((call.json["seq"] as? Int ?? 0) < (event["seq"] as? Int ?? 0))
        }
    }

    @Test func tappingWhileTheAppRunsInTheBackgroundIsNotAColdStart() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let id = try await h.accepted(token)
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            #expect(h.eventTypes(app).last == "NotificationOpened")
            let n = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(n["userInfoJson"] as? String == "")
        }
    }

    @Test func nonForwardingDelegateLosesTheColdStartToo() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            h.pluginCall(app, #"{"call":"RequestAuthorization","options":[3]}"#)
            h.pluginCall(app, #"{"call":"GetToken"}"#)
            let token = try #require(h.appState(app)["token"] as? String)
            h.action(app, #"{"action":"terminate"}"#)
            let id = try await h.accepted(token)
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            let n = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(n["userInfoJson"] as? String == "")
            #expect(h.eventTypes(app).isEmpty)
        }
    }

    @Test func foregroundBadgeChangesOnlyWhenWillPresentAsksForIt() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"presentation":[4,3]}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x","badge":7}}"#)
            #expect(h.centre(app)["badge"] as? Int == 0)
            h.action(app, #"{"action":"background"}"#)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x","badge":7}}"#)
            #expect(h.centre(app)["badge"] as? Int == 7)
        }
    }

    @Test func priorityOneIsDeferredLikePriorityFive() async throws {
        try await DeviceHarness.run(configure: { $0.lowPriorityDelaySeconds = 10 }) { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let id = try await h.accepted(token, payload: #"{"aps":{"content-available":1}}"#,
                                          headers: [H2Header("apns-push-type", "background"), H2Header("apns-priority", "1")])
            #expect(h.fates(id) == ["deferred"])
            h.advance(seconds: 10)
            #expect(h.fates(id) == ["deferred", "delivered"])
        }
    }

    @Test func sameCollapseIdWhileOfflineShowsOnlyTheNewestOnce() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let collapse = [H2Header("apns-collapse-id", "score")]
            let first = try await h.accepted(token, payload: #"{"aps":{"alert":"1-0"}}"#, headers: collapse)
            let second = try await h.accepted(token, payload: #"{"aps":{"alert":"2-0"}}"#, headers: collapse)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.fates(first) == ["stored", "coalesced"])
            #expect(h.fates(second) == ["stored", "shown"])
            #expect(h.notificationIds(app) == ["score"])
        }
    }

    @Test func forceQuitAbandonsAPendingGetTokenAndAHeldBackgroundPush() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(budget: 1)
            let token = try h.authorizedToken(app)
            let bg = [H2Header("apns-push-type", "background"), H2Header("apns-priority", "5")]
            _ = try await h.accepted(token, payload: #"{"aps":{"content-available":1}}"#, headers: bg)
            let held = try await h.accepted(token, payload: #"{"aps":{"content-available":1}}"#, headers: bg)
            #expect(h.fates(held) == ["deferred"])
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let pending = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(pending.json["state"] as? String == "pending")
            h.action(app, #"{"action":"forceQuit"}"#)
            #expect(h.fates(held) == ["deferred", "dropped"])
            let calls = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            #expect(calls.last?["state"] as? String == "abandoned")
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.eventTypes(app) == ["TokenRefreshed"], "the dead process's registration does not complete")
        }
    }

    @Test func thirdPartyReplacementLastsForTheProcessItHappenedIn() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"thirdParty":"replaces"}}"#)
            _ = try h.authorizedToken(app)
            #expect(h.appState(app)["delegateAttachment"] as? String == "replacedByThirdParty")
            h.action(app, #"{"action":"terminate"}"#)
            h.action(app, #"{"action":"launch"}"#)
            #expect(h.appState(app)["delegateAttachment"] as? String == "attached")
        }
    }

    @Test func setBadgeCountWithoutBadgeAuthorizationLeavesTheBadge() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","promptAnswer":"deny"}"#)
            h.pluginCall(app, #"{"call":"RequestAuthorization","options":[1,3]}"#)
            let r = h.pluginCall(app, #"{"call":"SetBadgeCount","count":4}"#)
            #expect(r.result["case"] as? String == "Success")
            #expect(h.centre(app)["badge"] as? Int == 0)
        }
    }

    @Test func pluginCallOnATerminatedAppLaunchesIt() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            #expect(h.appState(app)["lifecycle"] as? String == "notRunning")
            h.pluginCall(app, #"{"call":"GetNotificationSettings"}"#)
            #expect(h.appState(app)["lifecycle"] as? String == "foreground")
        }
    }
}
