import CShims

/// A fixed table of 64-bit counters, bumped from any thread with relaxed atomics and read the same way.
///
/// `@unchecked Sendable`: the storage is allocated once and never freed while the table lives; every read
/// and write goes through `CShims_counter_*` (C11 atomics), so concurrent access is defined behaviour.
final class CounterTable: @unchecked Sendable {
    let count: Int
    private let slots: UnsafeMutablePointer<UInt64>

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: 0, count: count)
    }

    deinit { slots.deallocate() }

    @inline(__always) func add(_ index: Int, _ value: UInt64 = 1) {
        CShims_counter_add(slots + index, value)
    }

    @inline(__always) func max(_ index: Int, _ value: UInt64) {
        CShims_counter_max(slots + index, value)
    }

    @inline(__always) func subtract(_ index: Int, _ value: UInt64 = 1) {
        CShims_counter_add(slots + index, UInt64(bitPattern: -Int64(value)))
    }

    func value(_ index: Int) -> UInt64 {
        CShims_counter_load(slots + index)
    }

    /// Zeroes every counter (reset). Not atomic as a whole: a bump racing with it may survive.
    func clear() {
        for i in 0..<count { CShims_counter_add(slots + i, UInt64(bitPattern: -Int64(bitPattern: value(i)))) }
    }
}
