import Testing

@testable import APNsProtocol

@Suite("CompactID")
struct CompactIDTests {
    static let uuid = "f2a0c1d2-0000-4000-8000-00000000000A"

    @Test func textReadsBackWhetherKeptInlineOrAsAString() {
        for text in ["", "a", "id-1", Self.uuid, Self.uuid + "x", String(repeating: "é", count: 40)] {
            let id = CompactID(text)
            #expect(id.string == text && id.description == text)
            #expect(id.count == text.utf8.count && id.isEmpty == text.isEmpty)
            #expect(id.withUTF8 { Array($0) } == Array(text.utf8))
            #expect(id.equals(text) && !id.equals(text + "?"))
            let fromBytes = Array(text.utf8).withUnsafeBytes { CompactID(bytes: $0) }
            #expect(fromBytes == id && fromBytes.hashValue == id.hashValue)
        }
    }

    /// Up to an apns-id's 36 bytes the text is inline, beyond it a String: equality is the text's either way
    /// (case included, as an apns-id is echoed as sent), never the storage's.
    @Test func equalityIsTheTextsOnBothSidesOfTheInlineLimit() {
        #expect(CompactID.inlineCapacity == 36 && Self.uuid.utf8.count == 36)
        if case .inline = CompactID(Self.uuid).storage {} else { Issue.record("a 36-byte id is kept inline") }
        if case .text = CompactID(Self.uuid + "x").storage {} else { Issue.record("37 bytes are kept as a String") }
        #expect(CompactID(Self.uuid) != CompactID(Self.uuid.lowercased()))
        #expect(CompactID(Self.uuid) != CompactID(String(Self.uuid.dropLast())))
        #expect(CompactID(Self.uuid + "x") == CompactID(Self.uuid + "x"))
        #expect(CompactID(Self.uuid + "x") != CompactID(Self.uuid + "y"))
        #expect(CompactID("ab") != CompactID("ab\u{0}"))
        #expect(Set([CompactID("a"), CompactID("a"), CompactID("b"), CompactID(Self.uuid + "x")]).count == 3)
        #expect(CompactID() == CompactID("") && CompactID().isEmpty)
    }

    @Test func randomIdsAreLowercaseVersion4UUIDsKeptInline() {
        var rng = APNsIDGenerator()
        var seen = Set<CompactID>()
        for _ in 0..<1000 {
            let id = rng.nextID()
            let text = id.string
            #expect(APNsID.isCanonical(text.utf8) && text == text.lowercased())
            #expect(Array(text.utf8)[14] == UInt8(ascii: "4"))
            if case .inline = id.storage {} else { Issue.record("a generated id is kept inline") }
            #expect(CompactID(text) == id)
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
