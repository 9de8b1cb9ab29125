import Testing

@testable import VirtualDevices

/// The background budget's rolling hour: exact counts for every budget a device accepts, bounded memory for
/// an unlimited one.
@Suite("RecentWakes")
struct RecentWakesTests {
    static let hour = RecentWakes.window

    @Test func aWakeCountsForExactlyOneHour() {
        var w = RecentWakes()
        w.record(1_000)
        w.record(2_000)
        #expect(w.count(at: 2_000) == 2)
        #expect(w.count(at: 1_000 + Self.hour - 1) == 2)
        #expect(w.count(at: 1_000 + Self.hour) == 1, "a wake exactly an hour old no longer counts")
        #expect(w.count(at: 2_000 + Self.hour) == 0)
    }

    /// An unlimited budget under load: memory stays at the largest budget, and that many still count.
    @Test func manyWakesKeepOnlyTheLargestBudgetsWorth() {
        var w = RecentWakes()
        for i in 0..<5_000 { w.record(Int64(i)) }
        #expect(w.count(at: 5_000) == RecentWakes.limit)
        // The newest `limit` are the ones kept: they expire an hour after their own times.
        #expect(w.count(at: 4_000 + Self.hour) == RecentWakes.limit - 1)
        #expect(w.count(at: 4_999 + Self.hour) == 0)
    }

    /// Dropping expired wakes in bulk (compaction) must not drop live ones.
    @Test func expiringOldWakesKeepsTheNewOnes() {
        var w = RecentWakes()
        for i in 0..<300 { w.record(Int64(i)) }
        for i in 0..<100 { w.record(Self.hour + Int64(i)) }
        #expect(w.count(at: Self.hour + 299) == 100, "the first 300 expired, the last 100 are within the hour")
        w.record(Self.hour + 300)
        #expect(w.count(at: Self.hour + 300) == 101)
        #expect(w.count(at: 2 * Self.hour + 99) == 1)
    }

    /// A wake recorded with an earlier time than the previous one (wall time stepped back) keeps the order
    /// expiry relies on.
    @Test func aClockThatWentBackDoesNotReorderTheWindow() {
        var w = RecentWakes()
        w.record(10_000)
        w.record(5_000)
        #expect(w.count(at: 10_000) == 2)
        #expect(w.count(at: 10_000 + Self.hour - 1) == 2)
        #expect(w.count(at: 10_000 + Self.hour) == 0)
    }
}
