import Testing

@testable import VirtualDevices

/// The plugin's five forwarding methods called as the app's own code calls them (`POST …/calls`), and the
/// edges every call shares: null arguments, wire codes, cancellation.
@Suite("Devices: forwarding methods and call edges")
struct ForwardingMethodsTests {
    private func result(_ r: Reply) -> [String: Any] { r.result }

    @Test func rawTokenBytesCompleteThePendingGetTokenAsLowercaseHex() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            let pending = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(pending.json["state"] as? String == "pending", "the delegate forwards nothing: \(pending.text)")
            let notify = h.pluginCall(app, #"{"call":"NotifyDidRegisterForRemoteNotifications","deviceToken":[0,171,16,255]}"#)
            #expect(notify.json["state"] as? String == "completed", "\(notify.text)")
            #expect(result(notify)["case"] as? String == "Success")
            #expect(result(notify)["wireCode"] == nil, "a success has no wire code")
            let calls = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            let getToken = try #require(calls.first)
            #expect((getToken["result"] as? [String: Any])?["token"] as? String == "00ab10ff")
            #expect(h.eventTypes(app) == ["TokenRefreshed"])
            #expect(h.events(app).first?["token"] as? String == "00ab10ff")
            // GetToken ends first, then the event, then the forwarding call itself.
            let seqs = [getToken["seq"] as? Int, h.events(app).first?["seq"] as? Int, notify.json["seq"] as? Int]
            #expect(seqs.compactMap { $0 } == (seqs.compactMap { $0 }).sorted() && seqs.allSatisfy { $0 != nil })
        }
    }

    @Test func hexDigitsOfEitherCaseAreTheSameBytes() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            h.pluginCall(app, #"{"call":"NotifyDidRegisterForRemoteNotifications","deviceToken":"0AbC"}"#)
            #expect(h.events(app).first?["token"] as? String == "0abc")
            let odd = h.pluginCall(app, #"{"call":"NotifyDidRegisterForRemoteNotifications","deviceToken":"abc"}"#)
            #expect(odd.status == 400 && odd.text.contains("deviceToken"), "\(odd.text)")
            let big = h.pluginCall(app, #"{"call":"NotifyDidRegisterForRemoteNotifications","deviceToken":[1,256]}"#)
            #expect(big.status == 400 && big.text.contains("deviceToken[1]"), "\(big.text)")
        }
    }

    @Test func everyNullArgumentThrowsArgumentNullExceptionNamingIt() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let cases: [(String, String)] = [
                (#"{"call":"NotifyDidRegisterForRemoteNotifications","deviceToken":null}"#, "deviceToken"),
                (#"{"call":"NotifyDidFailToRegister","errorDescription":null}"#, "errorDescription"),
                (#"{"call":"NotifyWillPresentNotification","notification":null}"#, "notification"),
                (#"{"call":"NotifyDidReceiveResponse","notification":null,"actionIdentifier":"a"}"#, "notification"),
                (#"{"call":"NotifyDidReceiveResponse","notification":{},"actionIdentifier":null}"#, "actionIdentifier"),
                (#"{"call":"NotifyColdStartNotification","userInfoJson":null}"#, "userInfoJson"),
            ]
            for (body, parameter) in cases {
                let r = h.pluginCall(app, body)
                #expect(r.json["state"] as? String == "threw", "\(body): \(r.text)")
                #expect(r.json["exception"] as? String == "ArgumentNullException")
                #expect(r.json["parameter"] as? String == parameter, "\(body)")
            }
            #expect(h.eventTypes(app).isEmpty, "a throwing call does nothing")
            let missing = h.pluginCall(app, #"{"call":"NotifyDidReceiveResponse","notification":{}}"#)
            #expect(missing.status == 400 && missing.text.contains("actionIdentifier"), "absent is not null: \(missing.text)")
            let stray = h.pluginCall(app, #"{"call":"NotifyDidFailToRegister","errorDescription":"x","userInfoJson":""}"#)
            #expect(stray.status == 400 && stray.text.contains("userInfoJson"), "\(stray.text)")
        }
    }

    @Test func willPresentFiresTheNotificationUnchangedAndAnswersNoPresentationOptions() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let r = h.pluginCall(app, #"{"call":"NotifyWillPresentNotification","notification":{"title":"T","badge":4,"#
                                 + #""interruptionLevel":3,"userInfoJson":"{\"k\":1}","isRemote":false}}"#)
            #expect(result(r)["case"] as? String == "Success", "\(r.text)")
            #expect(result(r)["presentationOptions"] as? [Int] == [], "always an empty list")
            let event = try #require(h.events(app).last)
            #expect(event["type"] as? String == "NotificationPresented")
            let n = try #require(event["notification"] as? [String: Any])
            #expect(n["title"] as? String == "T")
            #expect(n["badge"] as? Int == 4)
            #expect(n["interruptionLevel"] as? Int == 3)
            #expect(n["userInfoJson"] as? String == #"{"k":1}"#)
            #expect(n["isRemote"] as? Bool == false, "the plugin does not check that a notification is remote")
            let bad = h.pluginCall(app, #"{"call":"NotifyWillPresentNotification","notification":{"interruptionLevel":9}}"#)
            #expect(bad.status == 400 && bad.text.contains("notification.interruptionLevel"), "\(bad.text)")
        }
    }

    @Test func anEmptyActionIdentifierStillFiresNotificationOpened() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let r = h.pluginCall(app, #"{"call":"NotifyDidReceiveResponse","notification":{"body":"b"},"actionIdentifier":""}"#)
            #expect(result(r)["case"] as? String == "Success", "\(r.text)")
            #expect(result(r)["presentationOptions"] == nil, "only willPresent's response has fields")
            let event = try #require(h.events(app).last)
            #expect(event["type"] as? String == "NotificationOpened")
            #expect(event["actionIdentifier"] as? String == "")
        }
    }

    @Test func failToRegisterEndsThePendingGetTokenWithItsDescription() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            h.pluginCall(app, #"{"call":"GetToken"}"#)
            let r = h.pluginCall(app, #"{"call":"NotifyDidFailToRegister","errorDescription":"no valid aps-environment"}"#)
            #expect(result(r)["case"] as? String == "Success", "the forward itself succeeded: \(r.text)")
            let getToken = try #require((h.call("GET", app + "/calls").json["calls"] as? [[String: Any]])?.first)
            let failure = try #require(getToken["result"] as? [String: Any])
            #expect(failure["case"] as? String == "Failure")
            #expect(failure["wireCode"] as? String == "FAILURE")
            #expect(failure["problem"] as? String == "Unavailable")
            #expect(failure["message"] as? String == "no valid aps-environment")
        }
    }

    @Test func coldStartStoresOnlyANonEmptyJSONObject() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            for nothing in [#""""#, #""{}""#, #""[1]""#, #""not json""#] {
                h.pluginCall(app, #"{"call":"NotifyColdStartNotification","userInfoJson":\#(nothing)}"#)
                let n = result(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#))["notification"] as? [String: Any]
                #expect(n?["userInfoJson"] as? String == "", "\(nothing) stores nothing")
            }
            // Asked before the forward: empty; after it: the notification, once.
            let early = result(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#))["notification"] as? [String: Any]
            #expect(early?["userInfoJson"] as? String == "")
            h.pluginCall(app, #"{"call":"NotifyColdStartNotification","userInfoJson":"{\"aps\":{\"alert\":\"hi\",\"sound\":\"a.caf\"}}"}"#)
            let n = try #require(result(h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#))["notification"]
                as? [String: Any])
            #expect(n["body"] as? String == "hi")
            #expect(n["sound"] as? String == "a.caf")
            #expect(n["interruptionLevel"] as? Int == 0, "built from the raw payload")
        }
    }

    @Test func unknownOutcomeCallsIncludeTheForwardingMethodsAndCarryTheirWireCode() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","unknownOutcomeCalls":["NotifyWillPresentNotification"]}"#)
            let r = h.pluginCall(app, #"{"call":"NotifyWillPresentNotification","notification":{}}"#)
            #expect(result(r)["case"] as? String == "UnknownOutcome", "\(r.text)")
            #expect(result(r)["wireCode"] as? String == "UNKNOWN")
            #expect(h.eventTypes(app).isEmpty)
        }
    }

    @Test func aCallWithAnAlreadyCancelledTokenEndsCancelledAndDoesNothing() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let badge = h.pluginCall(app, #"{"call":"SetBadgeCount","count":5,"cancelled":true}"#)
            #expect(result(badge)["case"] as? String == "Failure", "\(badge.text)")
            #expect(result(badge)["problem"] as? String == "Cancelled")
            #expect(h.appState(app)["badge"] as? Int == 0)
            let token = h.pluginCall(app, #"{"call":"GetToken","cancelled":true}"#)
            #expect(result(token)["problem"] as? String == "Cancelled")
            #expect(h.appState(app)["token"] == nil, "no registration started")
            let null = h.pluginCall(app, #"{"call":"SetBadgeCount","count":null,"cancelled":true}"#)
            #expect(null.json["state"] as? String == "threw", "a null argument throws first")
        }
    }

    @Test func cancellingARequestAuthorizationAtThePromptEndsItAndLeavesThePromptUp() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","promptAnswer":"wait"}"#)
            let first = h.pluginCall(app, #"{"call":"RequestAuthorization","options":[1,2,3]}"#)
            let second = h.pluginCall(app, #"{"call":"RequestAuthorization","options":[1,2,3]}"#)
            let id = try #require(first.json["callId"] as? Int)
            let cancelled = h.pluginCall(app, #"{"call":"Cancel","callId":\#(id)}"#)
            #expect(result(cancelled)["case"] as? String == "Failure", "\(cancelled.text)")
            #expect(result(cancelled)["problem"] as? String == "Cancelled")
            #expect(h.appState(app)["promptShowing"] as? Bool == true)
            h.action(app, #"{"action":"answerPrompt","allow":true}"#)
            let calls = h.call("GET", app + "/calls").json["calls"] as? [[String: Any]] ?? []
            #expect((calls.first?["result"] as? [String: Any])?["problem"] as? String == "Cancelled", "not re-completed")
            #expect(calls.count == 2 && calls[1]["callId"] as? Int == second.json["callId"] as? Int)
            #expect((calls[1]["result"] as? [String: Any])?["granted"] as? Bool == true)
            #expect(h.appState(app)["authorizationStatus"] as? Int == 3)
        }
    }
}
