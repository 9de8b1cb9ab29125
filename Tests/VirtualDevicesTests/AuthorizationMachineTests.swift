import Testing

@testable import VirtualDevices

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

    @Test func anAppClipIsEphemeralAndAllowedWithoutAPrompt() {
        var m = AuthorizationMachine(ephemeral: true)
        #expect(m.status == .ephemeral)
        #expect(m.isAllowed && m.allows(.alert) && m.allows(.sound) && m.allows(.badge))
        #expect(m.request([.alert, .sound]) == .answer(granted: true))
        #expect(m.status == .ephemeral)
        m.setEnabledInSettings(false)
        #expect(m.status == .denied, "switched off in Settings like any app")
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

@Suite("PushPlugin results")
struct PushPluginTests {
    @Test func macOSAuthorizationErrorIsSuccessNotGranted() {
        let plugin = PushPlugin(platform: .macOS)
        #expect(plugin.authorizationFailed(callId: 4, osError: "not allowed") == [.complete(callId: 4, .success(.granted(false)))])
    }

    @Test func simulatorAndMissingEntitlementFailBeforeAnyRegistration() {
        var plugin = PushPlugin(platform: .iOS)
        guard case .complete(1, .failure(.failedPrecondition, _))? = plugin.getToken(callId: 1, hasPushEntitlement: false,
                                                                                     isSimulator: true).first else {
            Issue.record("the entitlement is checked first")
            return
        }
        guard case .complete(2, .failure(.unavailable, _))? = plugin.getToken(callId: 2, hasPushEntitlement: true,
                                                                              isSimulator: true).first else {
            Issue.record("simulator is Unavailable")
            return
        }
        #expect(plugin.pendingTokenCall == nil)
    }
}
