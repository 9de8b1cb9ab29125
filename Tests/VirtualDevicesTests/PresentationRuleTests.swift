import Testing

@testable import VirtualDevices

@Suite("PresentationRule")
struct PresentationRuleTests {
    static var payload: [String: Any]? {
        PayloadPath.object(#"{"aps":{"alert":"hi"},"custom":{"a":{"type":"chat","n":2,"ok":true}},"x":null}"#)
    }

    @Test func aRuleWithoutEqualsNeedsThePathOnly() {
        #expect(PresentationRule(path: "custom.a", presentation: []).matches(Self.payload))
        #expect(PresentationRule(path: "custom.a.type", equals: "chat", presentation: []).matches(Self.payload))
        #expect(!PresentationRule(path: "custom.a.type", equals: "order", presentation: []).matches(Self.payload))
        #expect(!PresentationRule(path: "type", presentation: []).matches(Self.payload))
    }
}
