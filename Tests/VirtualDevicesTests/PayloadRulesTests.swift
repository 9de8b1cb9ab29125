import Testing

@testable import VirtualDevices

/// The small pure pieces the app-as-a-script features rest on: payload paths, willPresent rules, the delegate's
/// argument changes, and the content extension session.
@Suite("Payload paths, delegate arguments and content extension sessions")
struct PayloadRulesTests {
    static var payload: [String: Any]? {
        PayloadPath.object(#"{"aps":{"alert":"hi"},"custom":{"a":{"type":"chat","n":2,"ok":true}},"x":null}"#)
    }

    @Test func pathsReadNestedTextNumbersAndBooleansButNotObjectsOrNull() {
        #expect(PayloadPath.text(at: "custom.a.type", in: Self.payload) == "chat")
        #expect(PayloadPath.text(at: "custom.a.n", in: Self.payload) == "2")
        #expect(PayloadPath.text(at: "custom.a.ok", in: Self.payload) == "true")
        #expect(PayloadPath.text(at: "custom.a", in: Self.payload) == nil, "an object has no text")
        #expect(PayloadPath.text(at: "x", in: Self.payload) == nil)
        #expect(PayloadPath.text(at: "custom.b.type", in: Self.payload) == nil)
        #expect(PayloadPath.object("[1]") == nil)
    }

    @Test func aRuleWithoutEqualsNeedsThePathOnly() {
        #expect(PresentationRule(path: "custom.a", presentation: []).matches(Self.payload))
        #expect(PresentationRule(path: "custom.a.type", equals: "chat", presentation: []).matches(Self.payload))
        #expect(!PresentationRule(path: "custom.a.type", equals: "order", presentation: []).matches(Self.payload))
        #expect(!PresentationRule(path: "type", presentation: []).matches(Self.payload))
    }

    @Test func changedArgumentsReplaceOrNullTheOSOnes() throws {
        var args = ForwardedArguments()
        #expect(args.apply(to: .didRegister(token: "ab")) == .success(.didRegister(token: "ab")), "no change: as the OS gave it")
        args.deviceToken = .some([0x0A, 0xFF])
        #expect(args.apply(to: .didRegister(token: "ab")) == .success(.didRegister(token: "0aff")))
        args.deviceToken = .some(nil)
        #expect(args.apply(to: .didRegister(token: "ab")) == .failure(.init(parameter: "deviceToken")))
        var response = ForwardedArguments()
        response.actionIdentifier = .some("")
        let n = ApnsNotification.empty
        #expect(response.apply(to: .didReceive(n, actionIdentifier: "X", userText: nil, launchedApp: true))
                == .success(.didReceive(n, actionIdentifier: "", userText: nil, launchedApp: true)))
        response.notificationIsNull = true
        #expect(response.apply(to: .willPresent(n)) == .failure(.init(parameter: "notification")))
    }

    @Test func aSessionDrawsOrFallsBackAndClosesOnce() {
        let drawn = ContentExtensionSession.expand("n1", drawnByExtension: true, settings: .init(), at: 5)
        #expect(drawn.interface == .custom && drawn.events.map(\.event) == [.didReceive])
        let heavy = ContentExtensionSession.expand("n1", drawnByExtension: true,
                                                   settings: .init(memoryMB: 200, memoryLimitMB: 120), at: 5)
        #expect(heavy.interface == .default && heavy.events.map(\.event) == [.didReceive, .killed])
        var plain = ContentExtensionSession.expand("n2", drawnByExtension: false, settings: .init(), at: 5)
        #expect(plain.interface == .default && plain.events.isEmpty)
        plain.close(at: 6)
        plain.close(at: 7)
        #expect(plain.events.map(\.event) == [.closed] && !plain.isOpen)
    }
}
