import Testing

@testable import VirtualDevices

@Suite("PayloadPath")
struct PayloadPathTests {
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
}
