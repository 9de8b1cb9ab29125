#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on the accept loop: accepts until EAGAIN and hands each fd to a worker loop.
final class Listener: Selectable {
    let fd: Int32
    let info: H2ListenerInfo
    private let onAccept: (Int32, SocketAddress?) -> Void
    private var closed = false
    /// Set while accepting is paused after the process ran out of file descriptors.
    private var paused = false
    private let loop: EventLoop

    init(fd: Int32, info: H2ListenerInfo, loop: EventLoop, onAccept: @escaping (Int32, SocketAddress?) -> Void) {
        self.fd = fd
        self.info = info
        self.loop = loop
        self.onAccept = onAccept
    }

    func handleEvent(_ events: UInt32) {
        // Bounded so a connection storm cannot starve the accept loop's own connections.
        for _ in 0..<256 {
            guard !closed else { return }
            do {
                switch try Socket.accept(fd) {
                case .wouldBlock:
                    return
                case .processed(let (client, peer)):
                    Socket.setNoDelay(client)
                    onAccept(client, peer)
                }
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE { pauseAccepting() }
                // Otherwise (ECONNABORTED, …) the listener stays up; the next readiness event retries.
                return
            }
        }
    }

    /// Out of file descriptors, the pending connection stays in the backlog and a level-triggered listener
    /// would wake the loop at once, forever (100% CPU while a flood of clients holds every fd). Stop watching
    /// it for 100 ms, so connections being closed meanwhile free descriptors, then try again.
    private func pauseAccepting() {
        guard !paused, !closed else { return }
        paused = true
        loop.deregister(fd: fd)
        loop.scheduleTimer(after: .milliseconds(100)) { [self] in
            self.paused = false
            guard !self.closed else { return }
            try? self.loop.register(fd: self.fd, self, edgeTriggered: false)
        }
    }

    func closeForLoopShutdown() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    func close(on loop: EventLoop) {
        guard !closed else { return }
        closed = true
        if !paused { loop.deregister(fd: fd) }
        Glibc.close(fd)
    }
}
