import APNsProtocol
import H2Transport
import Testing

@testable import VirtualDevices

/// The push plugin's calls, tokens and cold start, with pushes over real TLS.
@Suite("Devices: plugin calls, tokens and cold start (end to end)")
struct DevicePluginTests {
    @Test func coldStartFromTerminatedIsReturnedOnceThenEmpty() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"terminate"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"wake","sound":"bell.caf"},"deep":"link"}"#)
            #expect(h.appState(app)["lifecycle"] as? String == "notRunning")
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            #expect(h.eventTypes(app).last == "NotificationOpened")
            let first = h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result
            let n = try #require(first["notification"] as? [String: Any])
            #expect(n["body"] as? String == "wake")
            #expect(n["sound"] as? String == "bell.caf", "cold start carries aps.sound")
            #expect(n["interruptionLevel"] as? Int == 0)
            #expect((n["userInfoJson"] as? String)?.contains("deep") == true)
            let second = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(second["userInfoJson"] as? String == "", "afterwards: the empty notification, never null")
            #expect(second["body"] as? String == "")
        }
    }

    @Test func normalLaunchHasNoColdStartNotification() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            _ = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            let n = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(n["userInfoJson"] as? String == "")
        }
    }

    @Test func macOSColdStartComesFromTheFirstResponse() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(id: "mac", platform: "macOS")
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"terminate"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":{"body":"b","launch-image":"x.png"}}}"#)
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            let opened = try #require(h.events(app).last?["notification"] as? [String: Any])
            #expect(opened["launchImageName"] as? String == "", "no launch image on macOS")
            let n = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(n["body"] as? String == "b")
        }
    }

    @Test func lateDelegateMissesTheLaunchTapButColdStartStillArrives() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"setLate":true}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"terminate"}"#)
            let id = try await h.accepted(token)
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            #expect(h.eventTypes(app) == ["TokenRefreshed"], "didReceive for the launch tap was missed")
            let n = try #require(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"]
                as? [String: Any])
            #expect(n["identifier"] as? String == id, "launchOptions still carried it")
        }
    }

    @Test func secondGetTokenCancelsThePendingOneAndTheNewOneCompletesOnline() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(online: false)
            let first = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(first.json["state"] as? String == "pending", "offline: registration waits")
            let second = h.pluginCall(app, #"{"call":"GetToken"}"#)
            let calls = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            let firstResult = calls.first?["result"] as? [String: Any]
            #expect(firstResult?["case"] as? String == "Failure")
            #expect(firstResult?["problem"] as? String == "Cancelled")
            #expect(second.json["state"] as? String == "pending")
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            let after = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            #expect((after.last?["result"] as? [String: Any])?["token"] as? String != nil)
            #expect(h.eventTypes(app) == ["TokenRefreshed"])
        }
    }

    @Test func cancellationTokenEndsThePendingGetToken() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(online: false)
            let id = try #require(h.pluginCall(app, #"{"call":"GetToken"}"#).json["callId"] as? Int)
            let cancelled = h.pluginCall(app, #"{"call":"CancelGetToken","callId":\#(id)}"#)
            #expect(cancelled.result["problem"] as? String == "Cancelled")
        }
    }

    @Test func missingForwardingLeavesGetTokenPendingForever() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            let r = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(r.json["state"] as? String == "pending")
            #expect(h.eventTypes(app).isEmpty)
            #expect(h.appState(app)["token"] as? String != nil, "the OS registered; the app never told the plugin")
        }
    }

    @Test func registrationFailureIsUnavailableWithTheForwardedDescription() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","registrationError":"no valid aps-environment"}"#)
            let r = h.pluginCall(app, #"{"call":"GetToken"}"#).result
            #expect(r["problem"] as? String == "Unavailable")
            #expect(r["message"] as? String == "no valid aps-environment")
        }
    }

    @Test func simulatorIsUnavailableAndMissingEntitlementIsFailedPrecondition() async throws {
        try await DeviceHarness.run { h in
            let sim = try h.device(id: "sim", app: #"{"bundleId":"com.example.app","build":"simulator"}"#)
            #expect(h.pluginCall(sim, #"{"call":"GetToken"}"#).result["problem"] as? String == "Unavailable")
            let bare = try h.device(id: "bare", app: #"{"bundleId":"com.example.app","entitlements":{"push":false}}"#)
            #expect(h.pluginCall(bare, #"{"call":"GetToken"}"#).result["problem"] as? String == "FailedPrecondition")
            #expect(h.pluginCall(bare, #"{"call":"GetProviderEnvironment"}"#).result["problem"] as? String
                == "FailedPrecondition")
        }
    }

    @Test func appStoreBuildReportsProductionAndItsTokenIsAProductionToken() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","build":"appStore"}"#)
            #expect(h.pluginCall(app, #"{"call":"GetProviderEnvironment"}"#).result["environment"] as? Int == 1)
            let token = try h.authorizedToken(app)
            _ = try await h.accepted(token, environment: .production)
            let wrong = try await h.push(token, environment: .sandbox)
            #expect(wrong.status == 400)
            #expect(wrong.bodyText.contains("BadDeviceToken"))
        }
    }

    @Test func sandboxTokenAgainstProductionIsBadDeviceToken() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            #expect(h.pluginCall(app, #"{"call":"GetProviderEnvironment"}"#).result["environment"] as? Int == 2)
            let token = try h.authorizedToken(app)
            let r = try await h.push(token, environment: .production)
            #expect(r.status == 400)
            #expect(r.bodyText.contains("BadDeviceToken"))
        }
    }

    @Test func uninstallMakesTheToken410UnregisteredWithTheUninstallTime() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.emu.clock.advance(bySeconds: 5)
            let uninstalledAt = h.emu.clock.now()
            #expect(h.call("DELETE", app).status == 204)
            h.emu.clock.advance(bySeconds: 60)
            let r = try await h.push(token)
            #expect(r.status == 410)
            #expect(r.bodyText.contains("Unregistered"))
            #expect(r.bodyText.contains("\(uninstalledAt)"))
        }
    }

    @Test func reinstallAndRestoreYieldNewTokens() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let first = try h.authorizedToken(app)
            #expect(try h.authorizedToken(app) == first, "registration returns the same token for the same install")
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"restore"}"#)
            let second = try h.authorizedToken(app)
            #expect(second != first)
            h.call("DELETE", app)
            h.call("POST", "/_emulator/devices/phone/apps", #"{"bundleId":"com.example.app"}"#)
            let third = try h.authorizedToken(app)
            #expect(Set([first, second, third]).count == 3)
            #expect(try await h.push(first).status == 410)
        }
    }

    @Test func thirdPartyDelegateReplacementSilencesEventsUntilReattached() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"thirdParty":"replaces"}}"#)
            let token = try h.authorizedToken(app)
            #expect(h.appState(app)["delegateAttachment"] as? String == "replacedByThirdParty")
            h.action(app, #"{"action":"launch"}"#)
            let shown = try await h.accepted(token)
            #expect(h.fates(shown) == ["shown"], "the third party still presents it")
            #expect(h.eventTypes(app) == ["TokenRefreshed"], "but the plugin hears nothing")
            h.action(app, #"{"action":"reattachDelegate"}"#)
            _ = try await h.accepted(token)
            #expect(h.eventTypes(app) == ["TokenRefreshed", "NotificationPresented"])
        }
    }

    @Test func localNotificationsForwardedByMistakeFireEvents() async throws {
        try await DeviceHarness.run { h in
            let sloppy = try h.device(id: "a", app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"includingLocal"}}"#)
            let correct = try h.device(id: "b")
            for app in [sloppy, correct] {
                _ = try h.authorizedToken(app)
                h.action(app, #"{"action":"launch"}"#)
                h.action(app, #"{"action":"postLocalNotification","title":"reminder"}"#)
            }
            #expect(h.eventTypes(sloppy) == ["TokenRefreshed", "NotificationPresented"])
            #expect(h.eventTypes(correct) == ["TokenRefreshed"])
        }
    }

    @Test func promptLeftUpCompletesWhenTheUserAnswers() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","promptAnswer":"wait"}"#)
            let r = h.pluginCall(app, #"{"call":"RequestAuthorization","options":[3]}"#)
            #expect(r.json["state"] as? String == "pending")
            #expect(h.appState(app)["promptShowing"] as? Bool == true)
            h.action(app, #"{"action":"answerPrompt","allow":true}"#)
            let calls = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            #expect((calls.first?["result"] as? [String: Any])?["granted"] as? Bool == true)
            #expect(h.pluginCall(app, #"{"call":"GetNotificationSettings"}"#).result["authorizationStatus"] as? Int == 3)
            h.action(app, #"{"action":"setNotificationsEnabled","enabled":false}"#)
            #expect(h.pluginCall(app, #"{"call":"GetNotificationSettings"}"#).result["authorizationStatus"] as? Int == 2)
        }
    }

    @Test func callsTheOSAnswersWithSomethingNewerEndUnknownOutcome() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","unknownOutcomeCalls":["GetNotificationSettings"]}"#)
            #expect(h.pluginCall(app, #"{"call":"GetNotificationSettings"}"#).result["case"] as? String == "UnknownOutcome")
            #expect(h.pluginCall(app, #"{"call":"GetProviderEnvironment"}"#).result["case"] as? String == "Success")
            let bad = h.call("POST", "/_emulator/devices/phone/apps",
                             #"{"bundleId":"com.other","unknownOutcomeCalls":["Nope"]}"#)
            #expect(bad.status == 400)
            #expect(bad.json["field"] as? String == "unknownOutcomeCalls[0]")
        }
    }

    @Test func macOSWithNotificationsSwitchedOffStillAnswersSuccessNotGranted() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(id: "mac", platform: "macOS")
            h.action(app, #"{"action":"setNotificationsEnabled","enabled":false}"#)
            let r = h.pluginCall(app, #"{"call":"RequestAuthorization","options":[3]}"#).result
            #expect(r["case"] as? String == "Success")
            #expect(r["granted"] as? Bool == false)
        }
    }

    @Test func nullOptionsThrowArgumentNullInsteadOfFailing() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let r = h.pluginCall(app, #"{"call":"RequestAuthorization","options":null}"#)
            #expect(r.json["state"] as? String == "threw")
            #expect(r.json["exception"] as? String == "ArgumentNullException")
            #expect(r.json["parameter"] as? String == "options")
        }
    }
}
