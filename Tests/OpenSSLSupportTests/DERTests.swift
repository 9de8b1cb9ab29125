import Testing
@testable import OpenSSLSupport

@Suite struct DERTests {
    @Test func nullIsTagAndZeroLength() {
        #expect(DER.null == [0x05, 0x00])
    }

    @Test func appleTopicsShapeEncodesAsExpected() {
        let encoded = DER.sequence(DER.utf8String("a"), DER.sequence(DER.utf8String("app")))
        #expect(encoded == [0x30, 0x0A, 0x0C, 0x01, 0x61, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70, 0x70])
    }

    @Test func lengthsUseTheShortestForm() {
        #expect(DER.length(0) == [0x00])
        #expect(DER.length(127) == [0x7F])
        #expect(DER.length(128) == [0x81, 0x80])
        #expect(DER.length(255) == [0x81, 0xFF])
        #expect(DER.length(256) == [0x82, 0x01, 0x00])
        #expect(DER.length(70_000) == [0x83, 0x01, 0x11, 0x70])
    }

    @Test func parseReadsBackWhatWasWrittenIncludingLongLengths() throws {
        let long = String(repeating: "x", count: 300)
        let encoded = DER.sequence(DER.utf8String(long), DER.null, DER.contextSpecific(7, content: [127, 0, 0, 1]))
        let children = try DER.parse(encoded).children()
        #expect(children.count == 3)
        #expect(children[0].string == long)
        #expect(children[1] == DER.Node(tag: DER.Tag.null, content: []))
        #expect(children[2].tag == 0x87 && children[2].content == [127, 0, 0, 1])
    }

    @Test func parseRejectsTruncatedTrailingAndNonMinimalInput() {
        #expect(throws: DER.ParseError.self) { try DER.parse([0x30, 0x05, 0x0C]) }
        #expect(throws: DER.ParseError.self) { try DER.parse([0x05, 0x00, 0x05, 0x00]) }
        #expect(throws: DER.ParseError.self) { try DER.parse([0x04, 0x81, 0x01, 0x00]) }
        #expect(throws: DER.ParseError.self) { try DER.parse([0x04, 0x82, 0x00, 0x80]) }
        #expect(throws: DER.ParseError.self) { try DER.parse([]) }
    }

    @Test func primitiveNodeHasNoChildren() {
        #expect(throws: DER.ParseError.self) { try DER.Node(tag: DER.Tag.utf8String, content: [0x61]).children() }
    }
}
