import CShims
import Synchronization

/// The server's live connections, per event loop, for graceful shutdown and counting.
///
/// Each loop has its own `LoopConnections` object, touched only on that loop; the outer array is immutable,
/// so no two threads ever write the same storage. The count is atomic so any thread can read it.
final class ServerConnectionRegistry: Sendable {
    /// One loop's connections; loop-confined.
    final class LoopConnections: @unchecked Sendable {
        // @unchecked Sendable: every access goes through the registry methods below, which check they run
        // on `loop` (preconditionInLoop); the object is only shared to be reached from that loop.
        let loop: EventLoop
        var connections: [ObjectIdentifier: H2ServerConnection] = [:]
        /// Most connections this loop held since its last heap trim.
        var highWater = 0

        init(loop: EventLoop) { self.loop = loop }
    }

    private let perLoop: [LoopConnections]
    let count = Atomic<Int>(0)
    /// Streams reset because their header list passed the advertised SETTINGS_MAX_HEADER_LIST_SIZE.
    let headerListsRefused = Atomic<Int>(0)
    /// Connections closed for not sending the HTTP/2 preface in time (`prefaceTimeout`).
    let prefaceTimeouts = Atomic<Int>(0)
    /// Connections closed on accept because `maxConnections` were open.
    let connectionsRefused = Atomic<Int>(0)
    /// Connections accepted and on their way to a loop, not yet in `count`: the limit counts them too, or a burst
    /// accepted in one read would pass it before any loop adopted one.
    let pending = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)

    init(loops: [EventLoop]) {
        self.perLoop = loops.map(LoopConnections.init)
    }

    func makeID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    func add(_ connection: H2ServerConnection) {
        let slot = perLoop[connection.eventLoop.index]
        slot.loop.preconditionInLoop()
        slot.connections[ObjectIdentifier(connection)] = connection
        slot.highWater = max(slot.highWater, slot.connections.count)
        count.wrappingAdd(1, ordering: .relaxed)
    }

    func remove(_ connection: H2ServerConnection) {
        let slot = perLoop[connection.eventLoop.index]
        slot.loop.preconditionInLoop()
        if slot.connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            count.wrappingSubtract(1, ordering: .relaxed)
        }
        // glibc keeps freed pages: after a wave of 10,000 connections RSS would stay at its peak forever
        // (measured: 429 MB before and after). Trim once the loop has shed half of its peak, so the cost
        // (a heap walk) is paid rarely and only after large drops. This serves processes on glibc's malloc
        // (the emulator embedded in-process, as in tests); the apns-emulator executable allocates with jemalloc,
        // where this trims nothing and jemalloc's background thread returns the pages (its main.swift).
        let now = slot.connections.count
        if slot.highWater >= 256 && now <= slot.highWater / 2 {
            slot.highWater = now
            _ = CShims_malloc_trim(0)
        }
    }

    /// The connections of loop `index`; call on that loop.
    func connections(onLoop index: Int) -> [H2ServerConnection] {
        let slot = perLoop[index]
        slot.loop.preconditionInLoop()
        return Array(slot.connections.values)
    }
}
