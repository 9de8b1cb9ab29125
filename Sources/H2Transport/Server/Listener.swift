#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on the accept loop: accepts until EAGAIN and hands each fd to a worker loop.
final class Listener: Selectable {
    let fd: Int32
    let info: H2ListenerInfo
    private let onAccept: (Int32, SocketAddress?) -> Void
    private var closed = false

    init(fd: Int32, info: H2ListenerInfo, onAccept: @escaping (Int32, SocketAddress?) -> Void) {
        self.fd = fd
        self.info = info
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
                // EMFILE/ENFILE/ECONNABORTED: the listener stays up; the next readiness event retries.
                return
            }
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
        loop.deregister(fd: fd)
        Glibc.close(fd)
    }
}
