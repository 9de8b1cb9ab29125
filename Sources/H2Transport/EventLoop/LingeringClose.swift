#if canImport(Glibc)
import Glibc
#endif

/// A socket whose connection ended gracefully, kept a moment longer to read and drop what the peer still sends.
///
/// Closing a TCP socket while input is unread, or still arriving, makes the kernel answer with RST, and a peer that
/// receives RST throws away what it had not read yet: the last responses, and the GOAWAY saying why the connection
/// ends. A server recycling a busy connection (GOAWAY after N requests) closes while the client is still writing
/// (requests it sent before the GOAWAY reached it, acknowledgements), so without this the client lost answers to
/// requests the server had processed. As nginx's lingering close does, the write side is shut (FIN after our last
/// bytes) and reads are dropped until the peer closes too, for at most `timeout` or `limit` bytes; then the socket
/// is closed. Loop-confined; the loop's registration table and the timer hold it until then.
final class LingeringClose: Selectable {
    private let fd: Int32
    private let loop: EventLoop
    private let limit: Int
    private var discarded = 0
    private var timer: UInt64?
    private var finished = false

    /// How long a closed connection's socket waits for the peer's FIN at most, and how much it reads meanwhile.
    static let timeout: Duration = .seconds(2)
    static let limit = 1 << 20

    /// Takes over `fd` (already deregistered by its connection): shuts its write side and drains it until the
    /// peer closes, or closes it at once if it cannot be watched.
    static func start(fd: Int32, loop: EventLoop, timeout: Duration = timeout, limit: Int = limit) {
        // A stopping loop's final sweep has already walked its registrations: one added now would never close.
        guard !loop.isStopping else {
            Socket.discardReadable(fd)
            Glibc.close(fd)
            return
        }
        let closer = LingeringClose(fd: fd, loop: loop, limit: limit)
        Glibc.shutdown(fd, Int32(SHUT_WR))
        do throws(IOError) {
            // Registering a socket that is already readable reports it at once (edge-triggered included).
            try loop.register(fd: fd, closer)
        } catch {
            Glibc.close(fd)
            return
        }
        closer.timer = loop.scheduleTimer(after: timeout) { closer.finish() }
    }

    private init(fd: Int32, loop: EventLoop, limit: Int) {
        self.fd = fd
        self.loop = loop
        self.limit = limit
    }

    func handleEvent(_ events: UInt32) {
        guard !finished else { return }
        let (n, ended) = Socket.discardReadable(fd, upTo: limit - discarded)
        discarded += n
        if ended || discarded >= limit { finish() }
    }

    func closeForLoopShutdown() {
        finish()
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        loop.deregister(fd: fd)
        Glibc.close(fd)
    }
}
