import Synchronization

/// The live shaping settings: changed by the control API, read by every connection.
///
/// A connection keeps its own copy and the generation it was taken at; a request costs one atomic load to
/// see whether the copy is still current (the lock is taken only after a change).
public final class ShapingStore: Sendable {
    private let settings: Mutex<ShapingSettings>
    private let generationCounter = Atomic<UInt64>(1)

    public init(_ initial: ShapingSettings) {
        settings = Mutex(initial)
    }

    public var current: ShapingSettings { settings.withLock { $0 } }

    @inline(__always) public var generation: UInt64 { generationCounter.load(ordering: .acquiring) }

    /// Replaces the settings; connections pick them up at their next request.
    public func update(_ new: ShapingSettings) {
        settings.withLock { $0 = new }
        generationCounter.add(1, ordering: .releasing)
    }

    /// The settings with the generation they belong to (read together).
    func snapshot() -> (ShapingSettings, UInt64) {
        settings.withLock { ($0, generationCounter.load(ordering: .acquiring)) }
    }
}
