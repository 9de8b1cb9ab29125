import CShims

/// A fixed table of 64-bit counters: a row per event loop, which only that loop's thread writes (a plain load
/// and store, no locked instruction), and a shared row any thread bumps atomically. A read sums the rows (or,
/// for a high-water mark, takes their largest).
///
/// Rows per loop because a push bumps eight counters from its loop (status, push type, latency bucket, sum and
/// count, open streams up and down, the streams high-water mark), and as atomic adds on one shared line those
/// were eight locked instructions a push. Rows are a cache line apart, so loops never write the same line.
///
/// `@unchecked Sendable`: the storage is allocated once and never freed while the table lives; every read and
/// write goes through `CShims_counter_*` (C11 atomics), so concurrent access is defined behaviour. A loop row
/// with two writers would lose counts, not corrupt memory; its one writer is the event loop whose index it is
/// (`EmulatorMetrics`' callers pass `loop.index` only on that loop).
final class CounterTable: @unchecked Sendable {
    /// Loop rows; loops past them (more event loops than this) use the shared row.
    static let loopRows = 16
    /// Counters per row: `count` rounded up to whole 64-byte lines.
    private let stride: Int
    /// `loopRows` loop rows, then the shared row.
    private let slots: UnsafeMutablePointer<UInt64>
    private var shared: UnsafeMutablePointer<UInt64> { slots + Self.loopRows * stride }

    init(count: Int) {
        stride = (count + 7) / 8 * 8
        // Aligned to a line, so rows a line apart share none (malloc's own alignment is 16 bytes).
        let total = (Self.loopRows + 1) * stride
        slots = UnsafeMutableRawPointer.allocate(byteCount: total * MemoryLayout<UInt64>.stride, alignment: 64)
            .bindMemory(to: UInt64.self, capacity: total)
        slots.initialize(repeating: 0, count: total)
    }

    deinit { UnsafeMutableRawPointer(slots).deallocate() }

    /// Adds to the shared row, from any thread.
    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1) {
        CShims_counter_add(shared + index, value)
    }

    /// Adds on event loop `loop`'s row; called on that loop only (nil: the shared row, from any thread).
    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1, loop: Int?) {
        guard let loop, loop >= 0, loop < Self.loopRows else { return add(index, value) }
        CShims_counter_bump(slots + loop * stride + index, value)
    }

    /// Subtracts (wrapping: a row may go below zero when another row added; their sum does not).
    @inline(__always) func subtract(_ index: Int, _ value: UInt64 = 1, loop: Int? = nil) {
        add(index, UInt64(bitPattern: -Int64(bitPattern: value)), loop: loop)
    }

    /// Raises a high-water mark on `loop`'s row (nil: the shared row, from any thread).
    @inline(__always) func max(_ index: Int, _ value: UInt64, loop: Int?) {
        guard let loop, loop >= 0, loop < Self.loopRows else { return CShims_counter_max(shared + index, value) }
        CShims_counter_raise(slots + loop * stride + index, value)
    }

    /// The counter: every row summed.
    func value(_ index: Int) -> UInt64 {
        var total: UInt64 = 0
        for row in 0...Self.loopRows { total &+= CShims_counter_load(slots + row * stride + index) }
        return total
    }

    /// A high-water mark: the largest row.
    func maximum(_ index: Int) -> UInt64 {
        var top: UInt64 = 0
        for row in 0...Self.loopRows { top = Swift.max(top, CShims_counter_load(slots + row * stride + index)) }
        return top
    }
}
