#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A fixed set of event loops, one thread each; by default one per core.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let next = Atomic<Int>(0)

    /// - Parameter threads: loop count; nil means the number of online cores.
    public init(threads: Int? = nil, name: String = "h2-loop") throws(IOError) {
        let count = max(1, threads ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        var loops: [EventLoop] = []
        for i in 0..<count {
            let loop = try EventLoop(index: i)
            loops.append(loop)
        }
        self.loops = loops
        for loop in loops { loop.start(name: "\(name)-\(loop.index)") }
    }

    /// Round-robin choice; accepted sockets are handed out this way rather than with SO_REUSEPORT,
    /// which balances a few long-lived APNs connections badly.
    public func nextLoop() -> EventLoop {
        let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[i % loops.count]
    }

    /// Stops every loop and waits for their threads.
    public func shutdown() {
        for loop in loops { loop.stop() }
        for loop in loops { loop.join() }
    }
}
