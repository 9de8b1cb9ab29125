import APNsProtocol
import Foundation
import Testing

@testable import APNsEmulator

/// What the cluster journal copies: the journal's own bytes, read back elsewhere as the same entries, with a tail
/// repeated by many entries copied once, and a resumed copy starting where the last one stopped.
@Suite("Journal copies")
struct JournalCopyTests {
    @Test func aCopyReadsBackAsTheSameEntriesWithRepeatedTailsCopiedOnce() throws {
        let journal = Journal()
        for i in 0..<200 {
            // One request repeated (its tail shared in the arena), every fifth to another token (its own path).
            let r = JournalTests.record(pathToken: i % 5 == 0 ? String(repeating: "cd", count: 32) : nil,
                                        apnsId: String(format: "0f5e9c2b-7a11-4d3e-9b8c-%012d", i))
            journal.append(recorded: r)
        }
        journal.append(JournalEntry(id: 0, receivedAt: 1, connectionId: 0, environment: .sandbox, method: "POST",
                                    path: "/aside", status: 200, apnsId: "aside"))
        let copy = try #require(journal.copy(after: 0, count: 1_000))
        #expect(copy.count == 201 && copy.newestId == 201 && copy.aside.count == 1)
        let read = Journal.entries(copied: copy.bytes, aside: copy.aside)
        #expect(read == journal.query())
        // The repeated tail is not copied 200 times: the same entries with bodies all different (no tail to share)
        // copy to far more, about one tail per entry more.
        let distinct = Journal()
        for i in 0..<200 {
            distinct.append(recorded: JournalTests.record(
                pathToken: i % 5 == 0 ? String(repeating: "cd", count: 32) : nil,
                apnsId: String(format: "0f5e9c2b-7a11-4d3e-9b8c-%012d", i),
                body: Array(String(format: #"{"aps":{"alert":"héllo %04d"}}"#, i).utf8)))
        }
        let unshared = try #require(distinct.copy(after: 0, count: 1_000))
        let tail = read[1].headers.reduce(0) { $0 + $1.joined().utf8.count } + (read[1].payload?.utf8.count ?? 0)
        #expect(unshared.bytes.count - copy.bytes.count > 150 * tail,
                "shared \(copy.bytes.count) bytes, unshared \(unshared.bytes.count), a tail about \(tail)")
    }

    @Test func aCopyResumesAfterTheLastIdItTookAndSaysWhenThereIsNothing() throws {
        let journal = Journal()
        for _ in 0..<10 { journal.append(recorded: JournalTests.record()) }
        let first = try #require(journal.copy(after: 0, count: 4))
        #expect(first.count == 4 && first.newestId == 4)
        let rest = try #require(journal.copy(after: first.newestId, count: 100))
        #expect(rest.count == 6 && rest.newestId == 10)
        #expect(Journal.entries(copied: rest.bytes, aside: rest.aside).map(\.id) == Array(5...10))
        #expect(journal.copy(after: 10, count: 100) == nil)
    }

    @Test func aReferenceOutsideTheCopyIsNotFollowed() throws {
        let journal = Journal()
        for _ in 0..<3 { journal.append(recorded: JournalTests.record()) }
        let copy = try #require(journal.copy(after: 0, count: 10))
        // Drop the first entry (which holds the shared tail): the others' references now point before the buffer.
        let firstLength = Int(copy.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        let cut = Array(copy.bytes[firstLength...])
        #expect(Journal.entries(copied: cut, aside: []).isEmpty)
    }
}
