import Dispatch
import Testing
@testable import APNsEmulator

/// Counters kept in a row per event loop read as one number: the rows' sum, or for a high-water mark the
/// largest row.
@Suite("Counter table: a row per event loop")
struct CounterTableTests {
    @Test func aCounterIsTheSumOfEveryLoopsRowAndTheSharedOne() {
        let table = CounterTable(count: 3)
        table.add(1, 5, loop: 0)
        table.add(1, 7, loop: 3)
        table.add(1, 11)
        table.add(1, 13, loop: nil)
        #expect(table.value(1) == 36)
        #expect(table.value(0) == 0)
        #expect(table.value(2) == 0)
    }

    @Test func loopsPastTheRowsCountInTheSharedRow() {
        let table = CounterTable(count: 1)
        table.add(0, 1, loop: CounterTable.loopRows)
        table.add(0, 1, loop: CounterTable.loopRows + 40)
        table.add(0, 1, loop: -1)
        #expect(table.value(0) == 3)
    }

    /// A stream opened on one row and closed on another still leaves the open count at zero.
    @Test func subtractingOnAnotherRowCancelsOut() {
        let table = CounterTable(count: 1)
        table.add(0, 2, loop: 1)
        table.subtract(0, loop: 2)
        table.subtract(0)
        #expect(table.value(0) == 0)
        table.subtract(0, loop: 5)
        #expect(Int64(bitPattern: table.value(0)) == -1)
    }

    @Test func aHighWaterMarkIsTheLargestRowNotTheirSum() {
        let table = CounterTable(count: 2)
        table.max(1, 40, loop: 0)
        table.max(1, 25, loop: 1)
        table.max(1, 30, loop: 0)
        table.max(1, 35, loop: nil)
        #expect(table.maximum(1) == 40)
        table.max(1, 90, loop: 7)
        #expect(table.maximum(1) == 90)
    }

    /// Each thread writes only its own row, as each event loop does: no increment is lost, and counters
    /// next to each other stay apart.
    @Test func threadsEachOnTheirOwnRowLoseNothing() {
        let table = CounterTable(count: 9)
        let threads = 8, rounds = 100_000
        DispatchQueue.concurrentPerform(iterations: threads) { loop in
            for _ in 0..<rounds {
                table.add(loop, loop: loop)
                table.add(8, 2, loop: loop)
            }
        }
        for loop in 0..<threads { #expect(table.value(loop) == UInt64(rounds)) }
        #expect(table.value(8) == UInt64(2 * threads * rounds))
    }
}

@Suite("Latency histogram buckets")
struct LatencyBucketTests {
    /// The push path's literal bounds agree with the bounds `/metrics` prints, at, just past and between each.
    @Test func everyLatencyLandsInTheBucketOfTheFirstBoundAtOrAboveIt() {
        let bounds = EmulatorMetrics.latencyBoundsMicros
        func expected(_ micros: UInt64) -> Int { bounds.firstIndex { micros <= $0 } ?? bounds.count }
        var samples: [UInt64] = [0, 1, .max]
        for b in bounds { samples += [b - 1, b, b + 1, b * 3 / 2] }
        for micros in samples {
            #expect(EmulatorMetrics.latencyBucket(micros) == expected(micros), "\(micros) µs")
        }
    }
}
