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
