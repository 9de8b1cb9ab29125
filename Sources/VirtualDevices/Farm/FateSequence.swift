import Synchronization

/// Numbers every fate step across the farm's shards, so listings merge them in the order they happened.
final class FateSequence: Sendable {
    private let next = Atomic<UInt64>(0)

    func take() -> UInt64 { next.wrappingAdd(1, ordering: .relaxed).oldValue }
}
