import APNsProtocol
import Foundation
import Testing

@testable import APNsEmulator

/// The journal listing's own JSON writer against the control API's `JSONEncoder` settings, byte for byte.
@Suite("Journal entry JSON")
struct JournalEntryJSONTests {
    /// What the control API wrote before the listing had a writer of its own.
    static func encoded(_ entries: [JournalEntry]) throws -> [UInt8] {
        struct Listing: Encodable { var entries: [JournalEntry] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Array(try encoder.encode(Listing(entries: entries)))
    }

    /// Every byte below 0x80, a few that need care beyond it (U+2028, a BOM, an emoji, DEL) and an escape lookalike.
    static let awkwardText: String = {
        var s = ""
        for b in 0..<0x80 { s.unicodeScalars.append(Unicode.Scalar(UInt8(b))) }
        return s + "é\u{2028}\u{2029}\u{FEFF}😀 \\u0041 </script> \"quoted\""
    }()

    static let everyField = JournalEntry(
        id: Int64.max, receivedAt: 1_700_000_000_123, connectionId: UInt64.max, environment: .sandbox, method: "POST",
        path: "/3/device/" + awkwardText, token: String(repeating: "ab", count: 32), topic: "com.example.app",
        pushType: "alert", priority: 10, expiration: Int64.min, collapseId: awkwardText,
        headers: [[":method", "POST"], ["authorization", "bearer eyJhbGciOiJFUzI1NiJ9"], ["x-odd", awkwardText], []],
        payload: #"{"aps":{"alert":"héllo\n"}}"#, authMode: "token", authOutcome: "accepted", teamId: "TEAM123456",
        keyId: "KEY1234567", status: 410, reason: "Unregistered", timestamp: -1, apnsId: "0F5E9C2B-7A11-4D3E-9B8C-ABCDEF012345",
        apnsUniqueId: "a1b2c3d4-0000-4000-8000-000000000000", durationMicros: 0, faultId: "fault-1",
        warnings: ["apns-push-type absent: treated as alert", awkwardText, ""])

    static let fewestFields = JournalEntry(
        id: 1, receivedAt: 0, connectionId: 0, environment: .production, method: "", path: "", status: 200,
        apnsId: "")

    @Test func anEntryWithEveryFieldSetIsWrittenAsJSONEncoderWritesIt() throws {
        #expect(JournalEntry.listingJSON([Self.everyField]) == (try Self.encoded([Self.everyField])))
    }

    /// A field added to `JournalEntry` must be set in `everyField` and written by the listing's writer.
    @Test func everyStoredFieldOfAnEntryIsAKeyOfItsJSON() throws {
        let object = try JSONSerialization.jsonObject(with: Data(JournalEntry.listingJSON([Self.everyField])))
        let entry = try #require(((object as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        let fields = Set(Mirror(reflecting: Self.everyField).children.compactMap(\.label))
        #expect(fields.count == 26)
        #expect(Set(entry.keys) == fields)
    }

    @Test func fieldsThatAreNilAreLeftOutAsJSONEncoderLeavesThemOut() throws {
        let bytes = JournalEntry.listingJSON([Self.fewestFields])
        #expect(bytes == (try Self.encoded([Self.fewestFields])))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("token"))
    }

    @Test func anEmptyListingAndAManyEntryOneMatchJSONEncoder() throws {
        #expect(JournalEntry.listingJSON([]) == (try Self.encoded([])))
        #expect(String(decoding: JournalEntry.listingJSON([]), as: UTF8.self) == #"{"entries":[]}"#)
        var generator = Xorshift(seed: 0x5eed)
        let entries = (0..<200).map { _ in Self.randomEntry(&generator) }
        #expect(JournalEntry.listingJSON(entries) == (try Self.encoded(entries)))
    }

    @Test func theWrittenListingReadsBackAsTheEntries() throws {
        struct Listing: Decodable { var entries: [JournalEntry] }
        let entries = [Self.everyField, Self.fewestFields]
        let read = try JSONDecoder().decode(Listing.self, from: Data(JournalEntry.listingJSON(entries)))
        #expect(read.entries == entries)
    }

    /// Entries with each optional field present or not at random, texts drawn from `awkwardText` and numbers
    /// from the whole range.
    fileprivate static func randomEntry(_ g: inout Xorshift) -> JournalEntry {
        func text() -> String {
            let scalars = Array(awkwardText.unicodeScalars)
            var s = String.UnicodeScalarView()
            for _ in 0..<Int(g.next() % 12) { s.append(scalars[Int(g.next() % UInt64(scalars.count))]) }
            return String(s)
        }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { g.next() % 2 == 0 ? value() : nil }
        func int64() -> Int64 { Int64(bitPattern: g.next()) >> Int64(g.next() % 64) }
        return JournalEntry(
            id: int64(), receivedAt: int64(), connectionId: g.next() >> (g.next() % 64),
            environment: g.next() % 2 == 0 ? .production : .sandbox, method: text(), path: text(),
            token: maybe(text()), topic: maybe(text()), pushType: maybe(text()), priority: maybe(Int(int64())),
            expiration: maybe(int64()), collapseId: maybe(text()),
            headers: (0..<Int(g.next() % 4)).map { _ in [text(), text()] }, payload: maybe(text()),
            authMode: text(), authOutcome: text(), teamId: maybe(text()), keyId: maybe(text()),
            status: Int(g.next() % 600), reason: maybe(text()), timestamp: maybe(int64()), apnsId: text(),
            apnsUniqueId: maybe(text()), durationMicros: int64(), faultId: maybe(text()),
            warnings: (0..<Int(g.next() % 3)).map { _ in text() })
    }
}

/// A seeded xorshift, so a failing random case is the same on every run.
private struct Xorshift {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
