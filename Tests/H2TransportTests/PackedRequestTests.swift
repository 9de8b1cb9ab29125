import H2Transport
import Testing

@Suite struct PackedRequestTests {
    @Test func headersAndBodyComeBackExactlyAsPacked() {
        var headers = H2HeaderList()
        headers.append(name: ":method", value: "POST")
        headers.append(name: ":path", value: "/3/device/" + String(repeating: "ab", count: 32))
        headers.append(name: "apns-topic", value: "com.example.app")
        headers.append(name: "x-empty", value: "")
        headers.append(name: "apns-topic", value: "duplicate kept")
        let body = Array(#"{"aps":{"alert":"héllo"}}"#.utf8)
        let packed = PackedRequest(headers: headers, body: body)
        #expect(Array(packed.headers) == Array(headers))
        #expect(packed.body == body)
        #expect(!packed.bodyIsEmpty)
    }

    @Test func emptyHeadersAndBodyPackToNothing() {
        let packed = PackedRequest(headers: H2HeaderList(), body: [])
        #expect(packed.headers.isEmpty)
        #expect(packed.body.isEmpty)
        #expect(packed.bodyIsEmpty)
    }
}
