import APNsProtocol
import H2Transport
import Testing

@testable import APNsEmulator

@Suite("APNsResponseWriter: answers as transport responses")
struct APNsResponseWriterTests {
    private let extra = H2HeaderList([H2Header("x-version", "1")])

    @Test func successReusingItsListLeavesEarlierResponsesIntact() {
        var writer = APNsResponseWriter(extra: extra)
        var first = writer.success(apnsId: "id-1", uniqueId: "u-1")
        let firstCopy = first
        writer.reclaim(&first)
        let second = writer.success(apnsId: "id-2", uniqueId: nil)
        #expect(firstCopy.headers.map(\.name) == ["x-version", "apns-id", "apns-unique-id"])
        #expect(firstCopy["apns-id"] == "id-1" && firstCopy["apns-unique-id"] == "u-1")
        #expect(second.headers.map(\.name) == ["x-version", "apns-id"] && second["apns-id"] == "id-2")
        #expect(second != firstCopy)
        #expect(second.headers.allSatisfy { $0.name == "x-version" || $0.neverIndexed })
        #expect(!second.headers[0].neverIndexed)
    }

    /// The 200 written into the reused list is the answer the protocol layer describes, field for field.
    @Test func successIsTheProtocolsSuccessAnswer() {
        var writer = APNsResponseWriter(extra: extra)
        for uniqueId in ["u-9", nil] {
            let fast = writer.success(apnsId: "id-9", uniqueId: uniqueId)
            #expect(fast == writer.response(APNsAnswer.success(apnsId: "id-9", uniqueId: uniqueId)))
        }
    }

    @Test func rejectionCarriesTheCommonFieldsFirstThenTheAnswersAndItsBody() {
        let writer = APNsResponseWriter(extra: extra)
        let response = writer.response(APNsAnswer.rejection(.unregistered, timestamp: 5, id: "A", policy: ValidationPolicy()))
        #expect(response.status == 410)
        #expect(response.headers.map(\.name) == ["x-version", "content-type", "apns-id"])
        #expect(response.bodyText == #"{"reason":"Unregistered","timestamp":5}"#)
    }
}
