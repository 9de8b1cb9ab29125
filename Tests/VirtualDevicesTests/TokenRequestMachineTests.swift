import Testing

@testable import VirtualDevices

@Suite("TokenRequestMachine")
struct TokenRequestMachineTests {
    @Test func getTokenStartsRegistrationAndWaits() {
        var m = TokenRequestMachine()
        #expect(m.getToken(callId: 1) == [.startRegistration])
        #expect(m.pendingCall == 1)
    }

    @Test func forwardedTokenCompletesThePendingCallThenFiresTokenRefreshed() {
        var m = TokenRequestMachine()
        _ = m.getToken(callId: 1)
        #expect(m.didRegister(token: "ab") == [.complete(callId: 1, .success(.token("ab"))), .fire(.tokenRefreshed("ab"))])
        #expect(m.pendingCall == nil)
    }

    @Test func secondGetTokenCancelsPendingOne() {
        var m = TokenRequestMachine()
        _ = m.getToken(callId: 1)
        let actions = m.getToken(callId: 2)
        guard case .complete(1, .failure(.cancelled, _))? = actions.first else {
            Issue.record("expected call 1 cancelled first, got \(actions)")
            return
        }
        #expect(actions.last == .startRegistration)
        #expect(m.pendingCall == 2)
    }

    @Test func cancellationTokenEndsOnlyThePendingCall() {
        var m = TokenRequestMachine()
        _ = m.getToken(callId: 3)
        #expect(m.cancel(callId: 2) == [])
        guard case .complete(3, .failure(.cancelled, _))? = m.cancel(callId: 3).first else {
            Issue.record("call 3 was not cancelled")
            return
        }
        #expect(m.pendingCall == nil)
    }

    @Test func forwardedFailureIsUnavailableWithTheForwardedDescription() {
        var m = TokenRequestMachine()
        _ = m.getToken(callId: 1)
        #expect(m.didFailToRegister(description: "no network") == [.complete(callId: 1, .failure(.unavailable, message: "no network"))])
    }

    @Test func tokenForwardedWithNothingPendingStillFiresTokenRefreshed() {
        var m = TokenRequestMachine()
        #expect(m.didRegister(token: "cd") == [.fire(.tokenRefreshed("cd"))])
        #expect(m.didFailToRegister(description: "x") == [])
    }
}

@Suite("AuthorizationMachine")
struct AuthorizationMachineTests {
    @Test func firstRequestPromptsAndLaterRequestsReturnTheEarlierChoice() {
        var m = AuthorizationMachine()
        #expect(m.status == .notDetermined)
        #expect(m.request([.alert, .badge]) == .prompt)
        m.answer(granted: false, options: [.alert, .badge])
        #expect(m.status == .denied)
        #expect(m.request([.alert, .sound]) == .answer(granted: false))
    }

    @Test func emptyOptionListRequestsNothing() {
        var m = AuthorizationMachine()
        #expect(m.request([]) == .answer(granted: false))
        #expect(m.status == .notDetermined)
    }

    @Test func provisionalIsGrantedQuietlyWithoutPrompt() {
        var m = AuthorizationMachine()
        #expect(m.request([.alert, .provisional]) == .answer(granted: true))
        #expect(m.status == .provisional)
        #expect(m.request([.alert]) == .prompt)
    }

    @Test func settingsToggleFlipsAuthorizedAndDenied() {
        var m = AuthorizationMachine()
        _ = m.request([.alert])
        m.answer(granted: true, options: [.alert])
        m.setEnabledInSettings(false)
        #expect(m.status == .denied)
        #expect(m.allowedOptions.isEmpty)
        m.setEnabledInSettings(true)
        #expect(m.status == .authorized)
        #expect(m.allowedOptions == [.alert])
    }
}

@Suite("ColdStartSlot")
struct ColdStartSlotTests {
    @Test func storedNotificationIsReturnedOnceThenEmpty() {
        var slot = ColdStartSlot()
        let stored = slot.store(identifier: "n1", userInfoJson: #"{"aps":{"alert":"hi","sound":"ping.caf"}}"#, platform: .iOS)
        #expect(stored)
        let first = slot.take()
        #expect(first.body == "hi")
        #expect(first.sound == "ping.caf", "cold start carries aps.sound")
        #expect(first.interruptionLevel == .unspecified)
        #expect(first.relevanceScore == 0)
        #expect(slot.take() == .empty)
    }

    @Test(arguments: ["", "{}", "[1,2]", "\"text\"", "not json"])
    func emptyOrNonObjectJsonStoresNothing(_ json: String) {
        var slot = ColdStartSlot()
        let stored = slot.store(identifier: "n", userInfoJson: json, platform: .iOS)
        #expect(!stored)
        #expect(slot.take() == .empty)
    }

    @Test func emptyNotificationHasEveryFieldDefaultNeverNil() {
        let e = ApnsNotification.empty
        #expect(e.title.isEmpty && e.body.isEmpty && e.userInfoJson.isEmpty && e.badge == 0)
        #expect(e.interruptionLevel.rawValue == 0)
    }
}

@Suite("DelegateAttachment and forwarding table")
struct DelegateForwardingTests {
    static let remote = ApnsNotification(identifier: "r", content: PushContent(payload: Array(#"{"aps":{"alert":"x"}}"#.utf8)),
                                         platform: .iOS, level: .active, source: .delegate)
    static var local: ApnsNotification {
        var n = remote
        n.isRemote = false
        return n
    }

    @Test func thirdPartyReplacesTheDelegateAtTheFirstPromptOnly() {
        var a = DelegateAttachment()
        a.permissionPromptShown(replacement: .replaces)
        #expect(a.state == .replacedByThirdParty)
        a.reattach()
        a.permissionPromptShown(replacement: .replaces)
        #expect(a.state == .attached, "only the first prompt swaps the delegate")
    }

    @Test func reattachingPackageKeepsTheDelegate() {
        var a = DelegateAttachment()
        a.permissionPromptShown(replacement: .replacesThenReattached)
        #expect(a.state == .attached)
    }

    @Test func correctDelegateForwardsRemoteButNotLocalNotifications() {
        let c = DelegateConfiguration()
        #expect(DelegateForwarding.reaches(.willPresent(Self.remote), configuration: c, attachment: .attached))
        #expect(!DelegateForwarding.reaches(.willPresent(Self.local), configuration: c, attachment: .attached))
        let sloppy = DelegateConfiguration(forwarding: .includingLocal)
        #expect(DelegateForwarding.reaches(.willPresent(Self.local), configuration: sloppy, attachment: .attached))
    }

    @Test func nonForwardingDelegatePassesNothing() {
        let c = DelegateConfiguration(forwarding: .none)
        #expect(!DelegateForwarding.reaches(.didRegister(token: "ab"), configuration: c, attachment: .attached))
        #expect(!DelegateForwarding.reaches(.willPresent(Self.remote), configuration: c, attachment: .attached))
    }

    @Test func replacedDelegateStillForwardsRegistrationButNotNotifications() {
        let c = DelegateConfiguration()
        #expect(DelegateForwarding.reaches(.didRegister(token: "ab"), configuration: c, attachment: .replacedByThirdParty))
        #expect(!DelegateForwarding.reaches(
            .didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: false),
            configuration: c, attachment: .replacedByThirdParty))
    }

    @Test func lateDelegateMissesOnlyTheLaunchResponse() {
        let c = DelegateConfiguration(setLate: true)
        #expect(!DelegateForwarding.reaches(.didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: true),
                                            configuration: c, attachment: .attached))
        #expect(DelegateForwarding.reaches(.didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: false),
                                           configuration: c, attachment: .attached))
    }
}
