import CNGHTTP2

#if canImport(Glibc)
import Glibc
#endif

/// A server-side HTTP/2 connection as the layer above sees it: who is connected, over what, and controls
/// for GOAWAY and SETTINGS. Loop-confined: use it only on `eventLoop` (handler calls already are).
/// Fields marked `@exclusivity(unchecked)` skip Swift's dynamic exclusivity check: they are touched only on the
/// owning event loop (`preconditionInLoop`), one call at a time, and no access to one overlaps another (nothing
/// reached while one is being modified reaches back to it).
public final class H2ServerConnection: H2Connection {
    /// Unique per server, for logs and journals.
    public let id: UInt64
    /// The listener that accepted the connection (the APNs layer maps it to an environment).
    public let listener: H2ListenerInfo
    public let remoteAddress: SocketAddress?
    /// SNI sent by the client, if any (clients that dial an IP send none).
    public private(set) var serverName: String?
    /// ALPN result; nil when the client offered none and is spoken to in HTTP/2 anyway.
    public private(set) var alpnProtocol: String?
    public private(set) var tlsVersion: String = ""
    public private(set) var tlsCipher: String = ""
    /// The client certificate (DER) if one was presented, and whether it chained to the trust roots.
    public private(set) var peerCertificateDER: [UInt8]?
    public private(set) var peerCertificateVerified = false
    /// The SETTINGS most recently submitted to the peer.
    public private(set) var settings: H2Settings {
        didSet { headerListLimit = settings.maxHeaderListSize ?? .max }
    }
    /// `settings.maxHeaderListSize` as a plain integer, read once per header field.
    @exclusivity(unchecked) private var headerListLimit: Int

    public var eventLoop: EventLoop { loop }
    /// The loop's index in its group, and whether the caller is on that loop.
    public var loopIndex: Int { loop.index }
    public var isOnEventLoop: Bool { loop.inEventLoop }
    /// Streams currently open.
    public var openStreamCount: Int { open.count }
    /// Why the connection closed (or is closing), for logs and tests.
    public var closeDescription: String? { closeReason }
    /// Whether GOAWAY was sent (no new streams will be accepted).
    public private(set) var goAwaySent = false
    /// The last stream id that GOAWAY named: requests on streams above it are refused, never handled.
    @exclusivity(unchecked) private var goAwayLastStreamID: Int32 = .max
    /// Whether the client's connection preface (magic and SETTINGS) has arrived (`prefaceTimeout`).
    @exclusivity(unchecked) private var prefaceReceived = false

    private let config: H2ServerConfiguration
    private let handler: AnyServerHandler
    /// The handler bound to this connection's state, from the handshake's end until the close.
    @exclusivity(unchecked) private var opened: OpenConnectionHandler?
    private weak var registry: ServerConnectionRegistry?
    /// The open request streams, owned here, each at its `openIndex` (removal swaps the last one into its place).
    ///
    /// They are found by id through nghttp2's own stream map: each nghttp2 stream's user data is its
    /// `ServerStream`, unretained. That pointer is valid while it is set, because a stream leaves `open` only in
    /// `onStreamClose`, which clears it first (nghttp2 may keep the closed stream a while, to answer late frames
    /// on it), or in `didClose`, once the session is gone. A dictionary of our own
    /// from id to stream hashed the id twice per request (insertion and removal, SipHash) next to nghttp2's map.
    @exclusivity(unchecked) private var open: [ServerStream] = []
    /// The stream last begun or looked up (see `stream(_:)`): frames of one stream come in a row and its
    /// answer follows its last frame, so this saves a map lookup per header field and per response.
    ///
    /// Borrowed: it is only ever nil or a stream that `open` holds, because every removal from `open`
    /// (`onStreamClose`, `didClose`) clears it first when it is the stream removed.
    @exclusivity(unchecked) private var current: Borrowed<ServerStream>? = nil
    private var timerID: UInt64? = nil
    private let acceptedAt = monotonicNanoseconds()

    init(fd: Int32, loop: EventLoop, tls: TLSSession, id: UInt64, listener: H2ListenerInfo,
         remote: SocketAddress?, config: H2ServerConfiguration, handler: AnyServerHandler,
         registry: ServerConnectionRegistry) {
        self.id = id
        self.listener = listener
        self.remoteAddress = remote
        self.config = config
        self.settings = config.settings
        self.headerListLimit = config.settings.maxHeaderListSize ?? .max
        self.handler = handler
        self.registry = registry
        super.init(fd: fd, loop: loop, tls: tls, state: .handshaking)
        armTimer(after: config.handshakeTimeout)
    }

    // MARK: Public controls

    /// Sends GOAWAY: no new streams; in-flight ones finish, then the connection closes.
    /// - Parameters:
    ///   - errorCode: the HTTP/2 error code (APNs uses NO_ERROR with a JSON reason).
    ///   - debugData: opaque payload, e.g. `{"reason":"Shutdown"}`.
    public func sendGoAway(errorCode: H2ErrorCode = .noError, debugData: [UInt8] = []) {
        guard let session, !goAwaySent else { return }
        goAwaySent = true
        let last = nghttp2_session_get_last_proc_stream_id(session)
        goAwayLastStreamID = last
        _ = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode.rawValue,
                                  $0.baseAddress, $0.count)
        }
        flushIfIdle()
    }

    /// Sends new SETTINGS on the live connection (e.g. MAX_CONCURRENT_STREAMS down to 1 and back).
    public func updateSettings(_ settings: H2Settings) {
        self.settings = settings
        submitSettings(settings)
        flushIfIdle()
    }

    /// Closes the connection now; `reset` sends a TCP RST instead of a TLS close. Called by a handler while it
    /// handles a request, the close happens once the read that brought the request ends (the request's stream,
    /// borrowed meanwhile, must outlive the handler).
    public func closeNow(reset: Bool = false) {
        closeSoon(reason: "closed by the application", abortive: reset)
    }

    // MARK: Connection lifecycle

    override func handshakeCompleted() {
        serverName = tls.serverName
        alpnProtocol = tls.negotiatedALPN
        tlsVersion = tls.protocolVersion
        tlsCipher = tls.cipherName
        if let peer = tls.peerCertificate {
            peerCertificateDER = peer.der
            peerCertificateVerified = peer.verified
        }
        var s: OpaquePointer? = nil
        var memory = loop.nghttp2Allocator.memory
        guard nghttp2_session_server_new3(&s, NGHTTP2Callbacks.shared, opaqueSelf, NGHTTP2Callbacks.options, &memory) == 0,
              let s else {
            close(reason: "nghttp2_session_server_new3 failed", abortive: true)
            return
        }
        session = s
        if let chosen = handler.initialSettings(for: self, default: settings) { settings = chosen }
        submitSettings(settings)
        // Let the connection window grow with the stream window, so one large body does not stall others.
        _ = nghttp2_session_set_local_window_size(s, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: settings.initialWindowSize * 4))
        lastActivity = monotonicNanoseconds()
        armTimer(after: config.prefaceTimeout ?? config.idleTimeout, cancelling: true)
        opened = handler.open(self)
    }

    override func didClose() {
        if let timerID { loop.cancelTimer(timerID) }
        timerID = nil
        current = nil
        open.removeAll()
        registry?.remove(self)
        opened?.closed(self)
        opened = nil
    }

    /// Schedules `timerFired`; with `cancelling`, a nil interval still cancels the timer armed before.
    private func armTimer(after interval: Duration?, cancelling: Bool = false) {
        if cancelling, interval == nil, let timerID {
            loop.cancelTimer(timerID)
            self.timerID = nil
        }
        guard let interval else { return }
        if let timerID { loop.cancelTimer(timerID) }
        // Strong capture on purpose: `didClose` cancels the timer, which drops the closure (see TimerQueue).
        timerID = loop.scheduleTimer(after: interval) { self.timerFired() }
    }

    /// Handshake deadline, then the idle timeout; re-armed lazily so traffic costs no timer operations.
    private func timerFired() {
        timerID = nil
        switch state {
        case .handshaking, .connecting:
            close(reason: "TLS handshake not finished within \(config.handshakeTimeout!)", abortive: true)
        case .open where !prefaceReceived && config.prefaceTimeout != nil:
            registry?.prefaceTimeouts.wrappingAdd(1, ordering: .relaxed)
            close(reason: "no HTTP/2 preface and SETTINGS within \(config.prefaceTimeout ?? .zero) of the handshake",
                  abortive: false)
        case .open:
            guard let idle = config.idleTimeout else { return }
            let now = monotonicNanoseconds()
            let idleFor = now &- lastActivity
            if open.isEmpty && idleFor >= idle.nanosecondsClamped {
                closeReason = "idle for \(idle)"
                sendGoAway(debugData: config.idleGoAwayPayload)
                terminateAfterFlush()
                flushIfIdle()
            } else {
                let remaining = idle.nanosecondsClamped &- min(idleFor, idle.nanosecondsClamped)
                armTimer(after: .nanoseconds(Int64(max(remaining, 1_000_000))))
            }
        case .closed:
            return
        }
    }

    /// Graceful shutdown: GOAWAY now; the session ends by itself when its last stream closes.
    func beginGracefulShutdown() {
        switch state {
        case .open:
            sendGoAway()
        case .handshaking, .connecting:
            close(reason: "server shutting down", abortive: false)
        case .closed:
            break
        }
    }

    /// The open stream `id`; a hash lookup makes it `current`, so the frames, request and response that
    /// follow for the same stream (DATA with END_STREAM, then the answer) find it without another.
    @inline(__always)
    private func stream(_ id: Int32) -> ServerStream? {
        lookUp(id)?.strong
    }

    /// Runs `body` on the open stream `id` without retaining it (the stream stays in `open` throughout:
    /// `body` only records into it). For the callbacks that run once per header field or DATA frame.
    @inline(__always)
    private func withStream(_ id: Int32, _ body: (ServerStream) -> Void) {
        lookUp(id)?.with(body)
    }

    /// `current` when it is stream `id`, else the open stream `id` (which becomes `current`).
    @inline(__always)
    private func lookUp(_ id: Int32) -> Borrowed<ServerStream>? {
        if isCurrent(id) { return current }
        // Found through nghttp2's stream map (see `open`).
        guard let session, let data = nghttp2_session_get_stream_user_data(session, id) else { return nil }
        current = Borrowed(opaque: data)
        return current
    }

    @inline(__always)
    private func isCurrent(_ id: Int32) -> Bool {
        current?.with { $0.id == id } ?? false
    }

    // MARK: nghttp2 callbacks

    override func onBeginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let id = frame.pointee.hd.stream_id
        if id > goAwayLastStreamID, let session {
            // Refused as it starts (see `onFrameReceived`): no stream is set up, so its frames are ignored and
            // nothing of it is buffered.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, H2ErrorCode.refusedStream.rawValue)
            return 0
        }
        let stream = loop.streamPool.take()
        stream.reset(id: id)
        // nghttp2 opened the stream before this callback, so only a broken session refuses: the stream is reset.
        guard let session,
              nghttp2_session_set_stream_user_data(session, id, Borrowed(stream).opaque) == 0 else {
            loop.streamPool.give(stream)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        stream.openIndex = open.count
        current = Borrowed(stream)
        open.append(consume stream)  // moved: the table takes the pool's reference (no retain and release)
        return 0
    }

    override func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        let limit = headerListLimit
        var refused = false
        withStream(frame.pointee.hd.stream_id) { stream in
            stream.headerListSize &+= name.count &+ value.count &+ 32
            guard stream.headerListSize <= limit else {
                // HPACK lets a few bytes on the wire name a 4 KiB table entry again and again: keeping what the
                // advertised limit refuses would let one stream hold gigabytes.
                stream.headers.removeAll()
                refused = true
                return
            }
            stream.headers.append(name: name, value: value)
        }
        guard refused else { return 0 }
        // nghttp2 resets the stream (INTERNAL_ERROR, as nghttpd answers an oversized header list) and skips the
        // rest of its header block.
        registry?.headerListsRefused.wrappingAdd(1, ordering: .relaxed)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    override func onData(streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 {
        let limit = config.maxRequestBodyBytes
        withStream(streamID) { stream in
            stream.bodyLength += data.count
            if stream.bodyExceededLimit { return }
            if stream.body.count + data.count > limit {
                // Keep reading (flow control is still credited) but stop buffering: the handler decides the answer.
                stream.bodyExceededLimit = true
                stream.body.removeAll()
                return
            }
            stream.body.append(contentsOf: data)
        }
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let hd = frame.pointee.hd
        if !prefaceReceived, hd.type == UInt8(NGHTTP2_SETTINGS.rawValue) {
            // The client's preface ends with its SETTINGS (nghttp2 checked the magic before it): from now on
            // only the idle timeout applies.
            prefaceReceived = true
            if config.prefaceTimeout != nil { armTimer(after: config.idleTimeout, cancelling: true) }
        }
        let endStream = hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        guard endStream,
              hd.type == UInt8(NGHTTP2_HEADERS.rawValue) || hd.type == UInt8(NGHTTP2_DATA.rawValue),
              let found = lookUp(hd.stream_id) else { return 0 }
        // Borrowed, not retained: the stream stays in `open` until this returns (see the swap below).
        found.with { dispatch($0, hd) }
        return 0
    }

    /// Hands a complete request to the handler (`onFrameReceived`).
    private func dispatch(_ stream: ServerStream, _ hd: nghttp2_frame_hd) {
        lastActivity = loop.readAt
        // GOAWAY told the client that streams above its last stream id were not processed (RFC 9113 §6.8), so the
        // client may send them again elsewhere. nghttp2 only stops opening streams once the GOAWAY is on the wire,
        // and requests that arrive in the same read as the one that prompted it would otherwise be answered too:
        // the same push processed twice by a sender that retries, as it is entitled to. Most are refused as they
        // begin (`onBeginHeaders`); this catches one whose header block had begun before the GOAWAY.
        if hd.stream_id > goAwayLastStreamID {
            resetStream(hd.stream_id, code: .refusedStream)
            return
        }
        // The stream's header list and body move into the request and back after the handler: copying them cost
        // a retain and a release of each of their three arrays per request. A handler that kept an array shares
        // it with the stream, whose next request then writes into a copy of its own (copy on write). This relies on
        // the stream staying this request's until the swap back: nothing is sent while nghttp2 delivers frames
        // (`flushIfIdle` waits for the read to finish), so no stream closes and none goes back to the pool meanwhile.
        guard let opened else {
            // Requests arrive only after the handshake bound the handler; answer rather than leave the stream open.
            resetStream(stream.id, code: .internalError)
            return
        }
        precondition(isActivating, "a request handled outside a read: its stream could close before the swap back")
        var request = H2Request(headers: H2HeaderList(), streamID: stream.id)
        swap(&request.headers, &stream.headers)
        swap(&request.body, &stream.body)
        request.bodyLength = stream.bodyLength
        request.bodyExceededLimit = stream.bodyExceededLimit
        opened.handle(request, context: H2RequestContext(connection: self, streamID: stream.id, loop: loop,
                                                        openStreams: open.count))
        swap(&request.headers, &stream.headers)
        swap(&request.body, &stream.body)
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let found = lookUp(streamID) else { return 0 }
        current = nil  // the stream leaving (`lookUp` made it current)
        if let session { _ = nghttp2_session_set_stream_user_data(session, streamID, nil) }
        let stream = removeOpen(found)
        lastActivity = loop.readAt
        stream.outgoing = nil
        loop.streamPool.give(consume stream)  // the table's reference moves to the pool
        return 0
    }

    /// Takes `stream` out of `open` and hands over the table's reference to it (no retain of its own): the last
    /// stream moves into its place.
    private func removeOpen(_ stream: Borrowed<ServerStream>) -> ServerStream {
        let i = stream.with { $0.openIndex }
        let lastIndex = open.count - 1
        precondition(i <= lastIndex && stream.refers(to: open[i]),
                     "a stream not in the open table")
        if i != lastIndex {
            // Through the buffer: Array.swapAt retained and released the streams it moved.
            open.withUnsafeMutableBufferPointer { $0.swapAt(i, lastIndex) }
            open[i].openIndex = i
        }
        return open.removeLast()
    }

    // MARK: Responses

    func submitResponse(streamID: Int32, _ response: H2Response) {
        guard let found = lookUp(streamID) else { return }
        // Borrowed, not retained: nothing below closes the stream (nghttp2 closes streams only while sending).
        let queued = found.with { stream in
            loop.borrowedHeaderEncoder.with { submit(response, on: stream, encoder: $0) }
        }
        guard queued else { return }
        flushIfIdle()
    }

    /// Queues `response` on `stream` unless it was answered already; whether it was queued.
    /// - Parameter encoder: The loop's, borrowed.
    private func submit(_ response: H2Response, on stream: ServerStream, encoder: HeaderEncoder) -> Bool {
        guard let session, !stream.responded else { return false }
        let streamID = stream.id
        stream.responded = true
        let status = H2StatusText.text(for: response.status)
        // Straight from the fields' bytes: no String is read or copied on the way.
        let fields = response.fields
        encoder.begin(fields: fields.count + 1, byteCount: 7 + status.utf8.count + fields.byteCount)
        encoder.add(":status", status)
        for i in 0..<fields.count { encoder.add(fields, at: i) }
        let rv: Int32
        if response.body.isEmpty {
            rv = encoder.withFields { nv, count in
                nghttp2_submit_response(session, streamID, nv, count, nil)
            }
        } else {
            let body = OutgoingBody(response.body)
            stream.outgoing = body
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: Borrowed(body).opaque),
                read_callback: NGHTTP2Callbacks.bodyReader)
            rv = encoder.withFields { nv, count in
                nghttp2_submit_response(session, streamID, nv, count, &provider)
            }
        }
        if rv != 0 {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, H2ErrorCode.internalError.rawValue)
        }
        return true
    }

    func resetStream(_ streamID: Int32, code: H2ErrorCode) {
        guard let session, let stream = stream(streamID) else { return }
        stream.responded = true
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code.rawValue)
        flushIfIdle()
    }
}

/// Which listener a connection came in on.
public struct H2ListenerInfo: Sendable, Hashable {
    /// The application's name for the listener (e.g. "production", "sandbox").
    public let name: String
    public let address: SocketAddress

    public init(name: String, address: SocketAddress) {
        self.name = name
        self.address = address
    }
}

/// `:status` values as text, precomputed for the common codes.
enum H2StatusText {
    private static let table: [String] = (0..<600).map { String($0) }
    static func text(for status: Int) -> String {
        status >= 0 && status < table.count ? table[status] : String(status)
    }
}
