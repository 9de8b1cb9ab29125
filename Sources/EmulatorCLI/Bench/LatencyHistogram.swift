/// Latencies in microseconds, log-bucketed: exact below 128 µs, then 64 buckets per power of two (at most
/// ~1.6% relative error), so a percentile costs a walk over a few thousand counters whatever the count.
///
/// The layout is HdrHistogram's idea in its smallest form. One histogram per connection is filled on that
/// connection's event loop; they are merged at the end.
struct LatencyHistogram: Sendable {
    private static let exact = 128
    private static let perOctave = 64
    private(set) var counts = [Int](repeating: 0, count: 64 * 64)
    private(set) var total = 0
    private(set) var maximum: UInt64 = 0

    static func index(_ v: UInt64) -> Int {
        if v < UInt64(exact) { return Int(v) }
        let msb = 63 - v.leadingZeroBitCount
        let shift = msb - 6
        return (shift + 1) * perOctave + Int(v >> UInt64(shift)) - perOctave
    }

    /// The smallest value that falls in bucket `index`.
    static func lowerBound(_ index: Int) -> UInt64 {
        if index < exact { return UInt64(index) }
        let shift = index / perOctave - 1
        return UInt64(index % perOctave + perOctave) << UInt64(shift)
    }

    mutating func record(_ micros: UInt64) {
        let i = Self.index(micros)
        if i >= counts.count { counts += [Int](repeating: 0, count: i - counts.count + 1) }
        counts[i] += 1
        total += 1
        maximum = max(maximum, micros)
    }

    mutating func merge(_ other: LatencyHistogram) {
        if other.counts.count > counts.count { counts += [Int](repeating: 0, count: other.counts.count - counts.count) }
        for (i, c) in other.counts.enumerated() where c > 0 { counts[i] += c }
        total += other.total
        maximum = max(maximum, other.maximum)
    }

    /// The value at quantile `q` (0…1) in microseconds: the middle of its bucket, never above the maximum.
    func value(at q: Double) -> UInt64 {
        guard total > 0 else { return 0 }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        var seen = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            if seen >= rank {
                let low = Self.lowerBound(i), high = Self.lowerBound(i + 1)
                return min(maximum, low + (high - low) / 2)
            }
        }
        return maximum
    }
}
