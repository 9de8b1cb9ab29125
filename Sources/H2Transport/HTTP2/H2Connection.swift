import CNGHTTP2
import CShims

#if canImport(Glibc)
import Glibc
#endif

/// The part of an HTTP/2-over-TLS connection common to server and client: socket, TLS, nghttp2 session,
/// read fairness, output coalescing and closing. Subclasses add the role's stream handling.
///
/// ### Overview
/// ```
///  socket --read--> loop.readBuffer --TLSSession--> loop.plainBuffer --nghttp2 mem_recv--> callbacks
///  callbacks/handlers --submit--> nghttp2 --mem_send--> loop.coalesceBuffer --SSL_write--> scratchOut --write--> socket
/// ```
/// ### Implementation
/// Loop-confined; every entry point runs on `loop`. `user_data` given to nghttp2 is this object unretained:
/// the session is deleted in `close` while the object is alive, and nghttp2 calls back only from inside
/// `mem_recv`/`mem_send`, which run under a method of this object.
/// `nghttp2_session_del` does not report still-open streams, so subclasses drop their
/// stream tables in `didClose`.
/// Fields marked `@exclusivity(unchecked)` skip Swift's dynamic exclusivity check: they are touched only on the
/// owning event loop, one call at a time, and no access to one overlaps another. See `ServerStream`.
public class H2Connection: Selectable, ReadResumable, FlushDeferrable {
    enum State: Equatable {
        case connecting     // client: TCP connect in progress
        case handshaking    // TLS handshake in progress
        case open           // HTTP/2 session running
        case closed
    }

    let fd: Int32
    /// Strong: an unowned reference costs a check-and-retain on every use (several per request); the cycle
    /// with the loop's registration table ends when the connection deregisters on close.
    let loop: EventLoop
    let tls: TLSSession
    // Owned by the loop.
    @exclusivity(unchecked) var state: State
    @exclusivity(unchecked) var session: OpaquePointer? = nil
    /// Set while this connection runs inside handleEvent, so nested submits do not flush re-entrantly.
    @exclusivity(unchecked) private var activating = false
    /// Its flush waits for the loop's `coalescingWrites` to end.
    @exclusivity(unchecked) private var flushHeld = false
    /// Whether the connection is inside a read or resume (nghttp2 delivering frames): nothing is sent meanwhile.
    var isActivating: Bool { activating }
    /// A connection-level failure recorded by a callback, reported when the connection closes.
    var closeReason: String? = nil
    /// When the last byte arrived or a stream ended (monotonic ns): drives the idle timeout.
    @exclusivity(unchecked) var lastActivity: UInt64 = monotonicNanoseconds()
    /// True while reading paused because the peer is not reading our output.
    @exclusivity(unchecked) private var readPausedForBackpressure = false

    /// Stop reading while more than this much ciphertext waits for the peer.
    static let backpressureLimit = 1 << 20
    /// Socket reads per wakeup before yielding to other connections (64 KiB each).
    static let readBudget = 16

    init(fd: Int32, loop: EventLoop, tls: TLSSession, state: State) {
        self.fd = fd
        self.loop = loop
        self.tls = tls
        self.state = state
    }

    /// Runs `body` on the connection behind nghttp2's `user_data` without retaining it: nghttp2 calls back only
    /// from inside `mem_recv`/`mem_send`, which run under a method of this very object (see Implementation), so
    /// it is alive for the whole call. A retain and release per callback (a dozen per request) is measurable.
    @inline(__always)
    static func withConnection<R>(_ pointer: UnsafeMutableRawPointer, _ body: (H2Connection) -> R) -> R {
        Borrowed<H2Connection>(opaque: pointer).with(body)
    }

    var opaqueSelf: UnsafeMutableRawPointer { Borrowed(self).opaque }

    // MARK: Role hooks (overridden)

    func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 { 0 }
    func onData(streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 { 0 }
    func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 { 0 }
    func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 { 0 }
    /// nghttp2 gave up sending a frame (e.g. HEADERS of a request after GOAWAY); no stream close follows.
    func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, errorCode: Int32) -> Int32 { 0 }
    /// TLS is up; the subclass creates its nghttp2 session and queues its preface.
    func handshakeCompleted() {}
    /// TCP connect finished (client only).
    func connectCompleted() -> Bool { true }
    /// Called once, after the socket is closed and the session deleted.
    func didClose() {}

    // MARK: Events

    func handleEvent(_ events: UInt32) {
        guard state != .closed else { return }
        activating = true
        defer { activating = false }
        if state == .connecting {
            guard events & (CShims_EPOLLOUT | CShims_EPOLLERR | CShims_EPOLLHUP) != 0 else { return }
            guard connectCompleted() else { return }
        }
        if events & (CShims_EPOLLIN | CShims_EPOLLRDHUP | CShims_EPOLLHUP | CShims_EPOLLERR) != 0 && !readPausedForBackpressure {
            readAvailable()
        }
        finishActivation()
    }

    func resumeReading() {
        guard state != .closed else { return }
        activating = true
        defer { activating = false }
        readAvailable()
        finishActivation()
    }

    /// Output produced outside an event (a deferred response, a timer) is sent right away.
    func flushIfIdle() {
        guard !activating, state != .closed else { return }
        if flushHeld { return }
        if loop.holdFlush(self) { flushHeld = true; return }
        activating = true
        defer { activating = false }
        finishActivation()
    }

    func flushDeferred() {
        flushHeld = false
        flushIfIdle()
    }

    private func readAvailable() {
        var budget = Self.readBudget
        while state != .closed && pendingClose == nil {
            let result: IOResult<Int>
            do {
                result = try Socket.read(fd, into: loop.readBuffer)
            } catch {
                close(reason: "\(error)", abortive: true)
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                tls.peerClosed = true
                close(reason: "peer closed the connection", abortive: false)
                return
            case .processed(let n):
                loop.noteRead()
                lastActivity = loop.readAt
                feed(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n]))
            }
            budget -= 1
            if tls.pendingOut.count > Self.backpressureLimit {
                // The peer is not reading: stop accepting more work from it until our output drains.
                readPausedForBackpressure = true
                return
            }
            if budget == 0 {
                loop.resumeReadingNextTick(self)
                return
            }
        }
    }

    private func feed(_ ciphertext: UnsafeRawBufferPointer) {
        tls.beginInput(ciphertext)
        defer { tls.endInput() }
        if state == .handshaking {
            switch tls.handshake() {
            case .wantMore:
                return
            case .failed(let error):
                close(reason: error.description, abortive: true)
                return
            case .complete:
                state = .open
                handshakeCompleted()
                if state == .closed { return }
            }
        }
        while state == .open {
            switch tls.read(into: loop.plainBuffer) {
            case .bytes(let n):
                guard let session else { return }
                let rv = nghttp2_session_mem_recv(session, loop.plainBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), n)
                if rv < 0 {
                    // nghttp2 already queued GOAWAY for protocol errors (bad preface, flood, ...); send it, then close.
                    closeReason = closeReason ?? "HTTP/2: \(String(cString: nghttp2_strerror(Int32(rv))))"
                    terminateAfterFlush()
                    return
                }
            case .wantMore:
                return
            case .closed:
                close(reason: "peer sent TLS close_notify", abortive: false)
                return
            case .failed(let error):
                close(reason: error.description, abortive: true)
                return
            }
        }
    }

    /// Set when the connection must close as soon as its queued output (a GOAWAY) is written.
    @exclusivity(unchecked) private var closeAfterFlush = false
    /// A close asked for while nghttp2 was delivering frames (`closeSoon`), carried out when that read ends.
    @exclusivity(unchecked) private var pendingClose: (reason: String, abortive: Bool)?

    /// Closes now, or, from inside a read (a handler running under nghttp2's callbacks), as soon as that read
    /// ends: closing there deletes the session and drops the streams the callbacks are still using.
    func closeSoon(reason: String, abortive: Bool) {
        guard activating else { return close(reason: reason, abortive: abortive) }
        if pendingClose == nil { pendingClose = (reason, abortive) }
    }

    func terminateAfterFlush() {
        closeAfterFlush = true
    }

    /// Drains nghttp2's output through TLS to the socket and closes the connection when it is finished.
    private func finishActivation() {
        guard state != .closed else { return }
        if let pendingClose {
            self.pendingClose = nil
            return close(reason: pendingClose.reason, abortive: pendingClose.abortive)
        }
        if state == .open { drainSession() }
        let flushed: Bool
        do {
            flushed = try tls.flush(to: fd)
        } catch {
            close(reason: "\(error)", abortive: true)
            return
        }
        if flushed && readPausedForBackpressure {
            readPausedForBackpressure = false
            loop.resumeReadingNextTick(self)
        }
        guard state == .open, let session else {
            if closeAfterFlush && flushed { close(reason: closeReason ?? "closed", abortive: false) }
            return
        }
        if flushed && (closeAfterFlush || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)) {
            close(reason: closeReason ?? "HTTP/2 session finished", abortive: false)
        }
    }

    /// Moves everything nghttp2 has queued into TLS records, coalesced to ~16 KiB per SSL_write.
    private func drainSession() {
        guard let session else { return }
        let buffer = loop.coalesceBuffer
        var used = 0
        while tls.pendingOut.count <= Self.backpressureLimit {
            var data: UnsafePointer<UInt8>? = nil
            let n = nghttp2_session_mem_send(session, &data)
            if n < 0 {
                closeReason = "HTTP/2 send: \(String(cString: nghttp2_strerror(Int32(n))))"
                closeAfterFlush = true
                break
            }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(start: data, count: n)
            if used + n > buffer.count {
                writeTLS(UnsafeRawBufferPointer(rebasing: buffer[0..<used]))
                used = 0
            }
            if n >= buffer.count {
                writeTLS(chunk)
            } else {
                (buffer.baseAddress! + used).copyMemory(from: chunk.baseAddress!, byteCount: n)
                used += n
            }
        }
        if used > 0 { writeTLS(UnsafeRawBufferPointer(rebasing: buffer[0..<used])) }
    }

    private func writeTLS(_ bytes: UnsafeRawBufferPointer) {
        if let error = tls.write(bytes) {
            closeReason = error.description
            closeAfterFlush = true
        }
    }

    // MARK: Closing

    func closeForLoopShutdown() {
        close(reason: "event loop shut down", abortive: false)
    }

    /// Closes now. `abortive` sends RST (hostile or broken peers); otherwise a TLS close_notify is attempted and,
    /// unless the peer already closed, the socket drains what the peer still sends before it closes
    /// (`LingeringClose`, which closes at once when the loop is stopping), so what we sent last is not lost to a RST.
    func close(reason: String, abortive: Bool) {
        guard state != .closed else { return }
        let wasOpen = state == .open
        state = .closed
        if closeReason == nil { closeReason = reason }
        if wasOpen && !abortive && !tls.peerClosed {
            tls.sendCloseNotify()
            _ = try? tls.flush(to: fd)
        }
        // Anything left in the shared scratch belongs to this connection and must not leak to the next one.
        if !tls.hasPendingOutput { loop.scratchOut.removeAll(keepingCapacity: true) }
        loop.deregister(fd: fd)
        if abortive {
            Socket.setLingerZero(fd)
            Glibc.close(fd)
        } else if !tls.peerClosed {
            LingeringClose.start(fd: fd, loop: loop)
        } else {
            // A graceful close ends with FIN, not RST, only if nothing the peer sent is left unread.
            Socket.discardReadable(fd)
            Glibc.close(fd)
        }
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        didClose()
    }

    // MARK: Helpers for subclasses

    /// Queues SETTINGS.
    func submitSettings(_ settings: H2Settings) {
        guard let session else { return }
        let entries = settings.entries
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
    }
}
