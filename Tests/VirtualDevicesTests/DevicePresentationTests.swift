import APNsProtocol
import H2Transport
import Testing

@testable import VirtualDevices

/// A push sent over real TLS reaches a virtual device and produces what an iPhone would show and fire.
@Suite("Devices: presentation, taps, badge, grouping (end to end)")
struct DevicePresentationTests {
    @Test func foregroundPushIsPresentedAndFiresNotificationPresented() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":{"title":"Hi","body":"B"},"sound":"a.caf"}}"#)
            #expect(h.eventTypes(app) == ["TokenRefreshed", "NotificationPresented"])
            let presented = try #require(h.events(app).last?["notification"] as? [String: Any])
            #expect(presented["title"] as? String == "Hi")
            #expect(presented["sound"] as? String == "", "delegate-delivered notifications carry no sound")
            #expect(h.fates(id) == ["shown"])
            #expect(h.notificationIds(app) == [id])
        }
    }

    @Test func willPresentSuppressionByPayloadKeyShowsNothingButStillFiresTheEvent() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","delegate":{"suppressWhenPayloadHas":"silent"}}"#)
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"x"},"silent":true}"#)
            #expect(h.fates(id) == ["suppressed"])
            #expect(h.notificationIds(app).isEmpty)
            #expect(h.eventTypes(app).last == "NotificationPresented")
        }
    }

    @Test func tapOpensWithTheDefaultActionIdentifierAndKeepsTheBadge() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            h.action(app, #"{"action":"background"}"#)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"tap me","badge":3}}"#)
            #expect(h.fates(id) == ["shown"])
            #expect(h.eventTypes(app) == ["TokenRefreshed"], "no willPresent in the background")
            #expect(h.action(app, #"{"action":"tap","notificationId":"\#(id)"}"#).status == 200)
            let opened = try #require(h.events(app).last)
            #expect(opened["type"] as? String == "NotificationOpened")
            #expect(opened["actionIdentifier"] as? String == "com.apple.UNNotificationDefaultActionIdentifier")
            #expect(h.appState(app)["lifecycle"] as? String == "foreground")
            #expect(h.appState(app)["badge"] as? Int == 3, "tapping does not clear the badge")
            #expect(h.notificationIds(app).isEmpty)
        }
    }

    static let chatApp = #"{"bundleId":"com.example.app","categories":[{"identifier":"CHAT","customDismissAction":true,"#
        + #""actions":[{"identifier":"REPLY","textInput":true},{"identifier":"LIKE"}]},{"identifier":"PLAIN"}]}"#

    @Test func customActionWithTextInputReachesTheApp() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: Self.chatApp)
            let token = try h.authorizedToken(app)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"msg","category":"CHAT"}}"#)
            let r = h.action(app, #"{"action":"action","notificationId":"\#(id)","actionId":"REPLY","text":"on my way"}"#)
            #expect(r.status == 200, "\(r.text)")
            let opened = try #require(h.events(app).last)
            #expect(opened["actionIdentifier"] as? String == "REPLY")
            #expect(opened["userText"] as? String == "on my way")
            #expect(h.appState(app)["lifecycle"] as? String == "background", "a non-foreground action opens nothing")
        }
    }

    @Test func unknownActionOrTextForAPlainActionIsRefusedAndChangesNothing() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: Self.chatApp)
            let token = try h.authorizedToken(app)
            let id = try await h.accepted(token, payload: #"{"aps":{"alert":"msg","category":"CHAT"}}"#)
            #expect(h.action(app, #"{"action":"action","notificationId":"\#(id)","actionId":"NOPE"}"#).status == 409)
            #expect(h.action(app, #"{"action":"action","notificationId":"\#(id)","actionId":"LIKE","text":"x"}"#).status == 409)
            #expect(h.notificationIds(app) == [id])
            #expect(h.eventTypes(app) == ["TokenRefreshed"])
        }
    }

    @Test func dismissIsReportedOnlyForCategoriesWithCustomDismissAction() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: Self.chatApp)
            let token = try h.authorizedToken(app)
            let chat = try await h.accepted(token, payload: #"{"aps":{"alert":"a","category":"CHAT"}}"#)
            let plain = try await h.accepted(token, payload: #"{"aps":{"alert":"b","category":"PLAIN"}}"#)
            h.action(app, #"{"action":"dismiss","notificationId":"\#(plain)"}"#)
            #expect(h.eventTypes(app) == ["TokenRefreshed"])
            h.action(app, #"{"action":"dismiss","notificationId":"\#(chat)"}"#)
            #expect(h.events(app).last?["actionIdentifier"] as? String == "com.apple.UNNotificationDismissActionIdentifier")
            #expect(h.notificationIds(app).isEmpty)
        }
    }

    @Test func badgeComesFromThePayloadAndFromSetBadgeCount() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"a","badge":5}}"#)
            #expect(h.centre(app)["badge"] as? Int == 5)
            #expect(h.pluginCall(app, #"{"call":"SetBadgeCount","count":2}"#).result["case"] as? String == "Success")
            #expect(h.centre(app)["badge"] as? Int == 2)
            h.pluginCall(app, #"{"call":"SetBadgeCount","count":-4}"#)
            #expect(h.centre(app)["badge"] as? Int == 0, "Decision: a negative count clears the badge")
            let null = h.pluginCall(app, #"{"call":"SetBadgeCount","count":null}"#)
            #expect(null.json["exception"] as? String == "ArgumentNullException")
        }
    }

    @Test func sameThreadIdGroupsAndCollapseIdReplacesTheEarlierNotification() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let first = try await h.accepted(token, payload: #"{"aps":{"alert":"1","thread-id":"room-a"}}"#,
                                             headers: [H2Header("apns-collapse-id", "score")])
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"2","thread-id":"room-b"}}"#)
            let third = try await h.accepted(token, payload: #"{"aps":{"alert":"3","thread-id":"room-a"}}"#,
                                             headers: [H2Header("apns-collapse-id", "score")])
            #expect(h.notificationIds(app).count == 2)
            #expect(h.fates(first) == ["shown", "coalesced"])
            #expect(h.fates(third) == ["shown"])
            let groups = h.centre(app)["groups"] as? [[String: Any]] ?? []
            #expect(groups.map { $0["threadIdentifier"] as? String } == ["room-a", "room-b"])
        }
    }

    /// A local notification takes the identifier `local-N`; one posted with the identifier a push's notification
    /// has (its collapse id) replaces it on screen, and the push's fate says so (a local notification itself has
    /// no fate: it has no apns-id).
    @Test func aLocalNotificationReplacingAPushesNotificationIsThatPushesFate() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let push = try await h.accepted(token, payload: #"{"aps":{"alert":"remote"}}"#,
                                            headers: [H2Header("apns-collapse-id", "local-1")])
            h.action(app, #"{"action":"launch"}"#)
            h.action(app, #"{"action":"postLocalNotification","title":"reminder"}"#)
            #expect(h.fates(push) == ["shown", "coalesced"])
            #expect(h.notificationIds(app) == ["local-1"])
        }
    }

    @Test func timeSensitiveWithoutEntitlementArrivesPassive() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            _ = try await h.accepted(token, payload: #"{"aps":{"alert":"x","interruption-level":"time-sensitive"}}"#)
            let n = try #require(h.events(app).last?["notification"] as? [String: Any])
            #expect(n["interruptionLevel"] as? Int == 1)
        }
    }

    @Test func deniedAppShowsNothingButStillGetsBackgroundPushes() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(app: #"{"bundleId":"com.example.app","promptAnswer":"deny"}"#)
            let auth = h.pluginCall(app, #"{"call":"RequestAuthorization","options":[1,2,3]}"#)
            #expect(auth.result["case"] as? String == "Success")
            #expect(auth.result["granted"] as? Bool == false, "a denial is Success(Granted=false)")
            let token = try #require(h.pluginCall(app, #"{"call":"GetToken"}"#).result["token"] as? String)
            h.action(app, #"{"action":"terminate"}"#)
            let alert = try await h.accepted(token, payload: #"{"aps":{"alert":"x","badge":9}}"#)
            #expect(h.fates(alert) == ["suppressed"])
            #expect(h.centre(app)["badge"] as? Int == 0)
            let bg = try await h.accepted(token, payload: #"{"aps":{"content-available":1}}"#,
                                          headers: [H2Header("apns-push-type", "background"), H2Header("apns-priority", "5")])
            #expect(h.fates(bg) == ["delivered"])
            #expect(h.appState(app)["lifecycle"] as? String == "background", "launched in the background")
        }
    }
}

@Suite("Presentation option bits")
struct PresentationSetTests {
    /// `all`, a literal, is every option there is.
    @Test func allHoldsEveryPresentationOptionAndNothingElse() {
        #expect(VirtualApp.PresentationSet.all.bits == VirtualApp.PresentationSet(PresentationOption.allCases).bits)
        for option in PresentationOption.allCases { #expect(VirtualApp.PresentationSet.all.contains(option)) }
    }
}
