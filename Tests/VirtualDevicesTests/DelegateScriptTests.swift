import Testing

@testable import VirtualDevices

/// The app's delegate driven per callback: forward, drop, delay, or forward with changed arguments, and the
/// trace of what it did (`GET …/forwards`).
@Suite("Devices: the delegate as a script")
struct DelegateScriptTests {
    private func forwards(_ h: DeviceHarness, _ app: String) -> [[String: Any]] {
        h.call("GET", app + "/forwards").json["forwards"] as? [[String: Any]] ?? []
    }

    private func app(callbacks: String) -> String {
        #"{"bundleId":"com.example.app","delegate":{"callbacks":\#(callbacks)}}"#
    }

    @Test func aCorrectDelegateTracesEachForwardBeforeItsEffects() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = h.pluginCall(app, #"{"call":"GetToken"}"#)
            let trace = forwards(h, app)
            #expect(trace.count == 1)
            #expect(trace.first?["callback"] as? String == "didRegisterForRemoteNotifications")
            #expect(trace.first?["method"] as? String == "NotifyDidRegisterForRemoteNotifications")
            #expect(trace.first?["outcome"] as? String == "forwarded")
            #expect((trace.first?["seq"] as? Int ?? .max) < (token.json["seq"] as? Int ?? 0), "the forward, then GetToken ends")
        }
    }

    @Test func aDroppedTokenCallbackLeavesGetTokenPending() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: app(callbacks: #"{"didRegisterForRemoteNotifications":"drop"}"#))
            let r = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(r.json["state"] as? String == "pending", "\(r.text)")
            #expect(h.eventTypes(app).isEmpty)
            #expect(forwards(h, app).map { $0["outcome"] as? String } == ["dropped"])
            #expect(h.appState(app)["token"] as? String != nil, "the OS issued the token; the delegate lost it")
        }
    }

    @Test func aNullArgumentThrowsInsideTheDelegateAndNothingReachesThePlugin() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: app(callbacks: #"{"didRegisterForRemoteNotifications":{"with":{"deviceToken":null}}}"#))
            let r = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(r.json["state"] as? String == "pending")
            let trace = try #require(forwards(h, app).first)
            #expect(trace["outcome"] as? String == "threw")
            #expect(trace["parameter"] as? String == "deviceToken")
        }
    }

    @Test func changedArgumentsReachThePluginInsteadOfTheOSOnes() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: app(callbacks: #"{"didRegisterForRemoteNotifications":{"with":{"deviceToken":"ABCD"}}}"#))
            let r = h.pluginCall(app, #"{"call":"GetToken"}"#)
            #expect(r.result["token"] as? String == "abcd", "\(r.text)")
            let view = h.appState(app)
            let callbacks = (view["delegate"] as? [String: Any])?["callbacks"] as? [String: Any]
            let script = callbacks?["didRegisterForRemoteNotifications"] as? [String: Any]
            #expect((script?["with"] as? [String: Any])?["deviceToken"] as? String == "abcd", "the app view shows the script")
        }
    }

    @Test func aDelayedColdStartIsEmptyUntilItIsForwarded() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: app(callbacks: #"{"coldStartNotification":{"delayMs":1000}}"#))
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"terminate"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"sale"}}"#)
            h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#)
            let early = h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"] as? [String: Any]
            #expect(early?["userInfoJson"] as? String == "", "asked before NotifyColdStartNotification finished")
            h.advance(seconds: 1)
            let late = h.pluginCall(app, #"{"call":"GetColdStartNotification"}"#).result["notification"] as? [String: Any]
            #expect(late?["body"] as? String == "sale")
            let outcomes = forwards(h, app).filter { $0["callback"] as? String == "coldStartNotification" }
                .map { $0["outcome"] as? String }
            #expect(outcomes == ["delayed", "forwarded"])
        }
    }

    @Test func aDelayedForwardDiesWithItsProcess() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let app = try h.device(app: app(callbacks: #"{"didRegisterForRemoteNotifications":{"delayMs":5000}}"#))
            h.pluginCall(app, #"{"call":"GetToken"}"#)
            h.action(app, #"{"action":"terminate"}"#)
            h.advance(seconds: 10)
            #expect(forwards(h, app).map { $0["outcome"] as? String } == ["delayed", "abandoned"])
            #expect(h.eventTypes(app).isEmpty)
        }
    }

    @Test func aCallbackThatNeverReachesThePluginSaysWhy() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"forwarding":"none"}}"#)
            h.pluginCall(app, #"{"call":"GetToken"}"#)
            let trace = try #require(forwards(h, app).first)
            #expect(trace["outcome"] as? String == "notForwarded")
            #expect(trace["code"] as? String == "delegateForwardsNothing")
            #expect((trace["reason"] as? String)?.contains("forwards nothing") == true)
        }
    }

    @Test func badScriptsAreRefusedNamingTheField() async throws {
        try await DeviceHarness.run { h in
            let cases: [(String, String)] = [
                (#"{"willPresentNotification":"sometimes"}"#, "delegate.callbacks.willPresentNotification"),
                (#"{"willPresentNotification":{"delayMs":-1}}"#, "delegate.callbacks.willPresentNotification.delayMs"),
                (#"{"willPresentNotification":{"drop":true,"delayMs":5}}"#, "delegate.callbacks.willPresentNotification"),
                (#"{"willPresentNotification":{"with":{"deviceToken":"ab"}}}"#, "deviceToken"),
                (#"{"didReceiveResponse":{"with":{"notification":"x"}}}"#, "with.notification"),
                (#"{"didRegister":"drop"}"#, "didRegister"),
            ]
            for (callbacks, field) in cases {
                let r = h.call("POST", "/_emulator/devices", #"{"id":"p","apps":[\#(app(callbacks: callbacks))]}"#)
                #expect(r.status == 400 && r.text.contains(field), "\(callbacks): \(r.text)")
            }
        }
    }
}
