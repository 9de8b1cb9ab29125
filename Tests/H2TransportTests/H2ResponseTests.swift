import H2Transport
import Testing

@Suite("H2Response")
struct H2ResponseTests {
    /// A response keeps its fields as bytes; `headers` reads and writes them as values, and its subscript
    /// finds a name whatever its case.
    @Test func aResponseReadsAndWritesItsFieldsAsHeaders() {
        var response = H2Response(status: 200, headers: [H2Header("Content-Type", "application/json")])
        #expect(response["content-type"] == "application/json" && response["CONTENT-TYPE"] == "application/json")
        response.headers.append(H2Header("apns-id", "id-1", neverIndexed: true))
        #expect(response.fields.count == 2 && response.fields.isNeverIndexed(at: 1))
        #expect(response.headers == [H2Header("Content-Type", "application/json"), H2Header("apns-id", "id-1", neverIndexed: true)])
        #expect(response["apns-id"] == "id-1" && response["apns-unique-id"] == nil)
        #expect(response == H2Response(status: 200, fields: response.fields))
        #expect(response != H2Response(status: 201, fields: response.fields))
    }
}
