import CShims
import Synchronization

/// The server's live connections, per event loop, for graceful shutdown and counting.
///
/// Each loop's set is touched only on that loop; the count is atomic so any thread can read it.
final class ServerConnectionRegistry: @unchecked Sendable {
    // @unchecked Sendable: `perLoop[i]` is accessed only on loop i (see `preconditionInLoop` calls);
    // `count` and `nextID` are atomics.
    private var perLoop: [[ObjectIdentifier: H2ServerConnection]]
    /// Most connections a loop held since its last heap trim.
    private var highWater: [Int]
    private let loops: [EventLoop]
    let count = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    init(loops: [EventLoop]) {
        self.loops = loops
        self.perLoop = Array(repeating: [:], count: loops.count)
        self.highWater = Array(repeating: 0, count: loops.count)
    }

    func makeID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func add(_ connection: H2ServerConnection) {
        let i = connection.eventLoop.index
        loops[i].preconditionInLoop()
        perLoop[i][ObjectIdentifier(connection)] = connection
        highWater[i] = max(highWater[i], perLoop[i].count)
        count.wrappingAdd(1, ordering: .relaxed)
    }

    func remove(_ connection: H2ServerConnection) {
        let i = connection.eventLoop.index
        loops[i].preconditionInLoop()
        if perLoop[i].removeValue(forKey: ObjectIdentifier(connection)) != nil {
            count.wrappingSubtract(1, ordering: .relaxed)
        }
        // glibc keeps freed pages: after a wave of 10,000 connections RSS would stay at its peak forever
        // (measured: 429 MB before and after). Trim once the loop has shed half of its peak, so the cost
        // (a heap walk) is paid rarely and only after large drops.
        let now = perLoop[i].count
        if highWater[i] >= 256 && now <= highWater[i] / 2 {
            highWater[i] = now
            _ = CShims_malloc_trim(0)
        }
    }

    /// The connections of loop `index`; call on that loop.
    func connections(onLoop index: Int) -> [H2ServerConnection] {
        loops[index].preconditionInLoop()
        return Array(perLoop[index].values)
    }
}
