import Testing
@testable import VirtualDevices

@Suite("Fate counts")
struct FateCountsTests {
    @Test func eachKindHasItsOwnCounterInAllCasesOrder() {
        #expect(PushFate.Kind.allCases.map(\.ordinal) == Array(0..<PushFate.Kind.allCases.count))
        var counts = FateCounts()
        for (i, kind) in PushFate.Kind.allCases.enumerated() {
            for _ in 0...i { counts.add(kind) }
        }
        #expect(PushFate.Kind.allCases.map { counts[$0] } == Array(1...PushFate.Kind.allCases.count))
    }
}
