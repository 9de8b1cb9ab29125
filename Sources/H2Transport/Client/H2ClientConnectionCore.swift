import CNGHTTP2
import WireBytes

#if canImport(Glibc)
import Glibc
#endif

/// The loop-confined client side of one HTTP/2-over-TLS connection.
final class H2ClientConnectionCore: H2Connection {
    typealias Completion = @Sendable (Result<H2Response, H2ClientError>) -> Void

    final class ClientStream {
        var status = 0
        var headers = H2HeaderList()
        var body: [UInt8] = []
        var outgoing: OutgoingBody?
        let completion: Completion
        init(completion: @escaping Completion) { self.completion = completion }
    }

    private var streams: [Int32: ClientStream] = [:]
    /// Requests submitted before the server's SETTINGS arrived.
    private var waiting: [(H2Request, Completion)] = []
    private var onConnect: ((Result<Void, H2ClientError>) -> Void)?
    private let settings: H2Settings
    private let serverSettingsTimeout: Duration
    /// The server's first SETTINGS frame has been received (nghttp2 applied its limits): the connection is ready.
    private var serverSettingsReceived = false
    /// The timer that fails the connection if those SETTINGS never come (cancelled when they do, or on close).
    private var settingsTimer: UInt64?
    /// Set by a received GOAWAY (no new requests) or by `close`.
    private(set) var goAwayReceived = false
    var onClosed: (@Sendable (String) -> Void)?
    /// Called on the loop when the server's GOAWAY arrives (the connection takes no new requests from then on).
    var onGoAway: (@Sendable () -> Void)?

    init(fd: Int32, loop: EventLoop, tls: TLSSession, settings: H2Settings, serverSettingsTimeout: Duration,
         onConnect: @escaping (Result<Void, H2ClientError>) -> Void) {
        self.onConnect = onConnect
        self.settings = settings
        self.serverSettingsTimeout = serverSettingsTimeout
        super.init(fd: fd, loop: loop, tls: tls, state: .connecting)
    }

    var inFlight: Int { streams.count + waiting.count }

    override func connectCompleted() -> Bool {
        let err = Socket.pendingError(fd)
        if err != 0 {
            // Only the cause: `didClose` reports it as `connectFailed`, whose description says "connect failed".
            close(reason: IOError(errno: err, function: "connect").reason, abortive: true)
            return false
        }
        state = .handshaking
        // Start the handshake: the ClientHello is produced without input.
        switch tls.handshake() {
        case .failed(let e):
            close(reason: e.description, abortive: true)
            return false
        case .complete, .wantMore:
            return true
        }
    }

    override func handshakeCompleted() {
        var s: OpaquePointer? = nil
        var memory = loop.nghttp2Allocator.memory
        guard nghttp2_session_client_new3(&s, NGHTTP2Callbacks.shared, opaqueSelf, NGHTTP2Callbacks.options, &memory) == 0,
              let s else {
            close(reason: "nghttp2_session_client_new3 failed", abortive: true)
            return
        }
        session = s
        submitSettings(settings)
        _ = nghttp2_session_set_local_window_size(s, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: settings.initialWindowSize * 4))
        // Ready once the server's SETTINGS arrive (`serverSettingsArrived`), which an HTTP/2 server sends first.
        // The timer holds the connection strongly and is cancelled either way (see `TimerQueue`).
        settingsTimer = loop.scheduleTimer(after: serverSettingsTimeout) { [self] in
            settingsTimer = nil
            guard !serverSettingsReceived, state != .closed else { return }
            close(reason: "the server sent no HTTP/2 SETTINGS within \(serverSettingsTimeout)", abortive: true)
        }
    }

    /// The server's connection preface arrived: report the connection ready and send what was waiting.
    private func serverSettingsArrived() {
        serverSettingsReceived = true
        cancelSettingsTimer()
        onConnect?(.success(()))
        onConnect = nil
        let queued = waiting
        waiting = []
        for (request, completion) in queued { submit(request, completion: completion) }
    }

    func submit(_ request: H2Request, completion: @escaping Completion) {
        switch state {
        case .connecting, .handshaking:
            waiting.append((request, completion))
            return
        case .open where !serverSettingsReceived:
            waiting.append((request, completion))
            return
        case .closed:
            completion(.failure(.connectionClosed(closeReason ?? "closed")))
            return
        case .open:
            break
        }
        guard let session, !goAwayReceived else {
            completion(.failure(.submitFailed("the server sent GOAWAY")))
            return
        }
        let stream = ClientStream(completion: completion)
        // Pseudo-headers first (RFC 9113 §8.3), then the rest in the caller's order.
        let encoder = loop.headerEncoder
        let headers = request.headers
        encoder.begin(fields: headers.count, byteCount: headers.byteCount)
        // Straight from the list's bytes: `headers[i]` built two Strings per field, ~10% of a load generator's
        // CPU (`apns-emulator bench`).
        for pass in 0..<2 {
            for i in 0..<headers.count where headers.isPseudo(at: i) == (pass == 0) { encoder.add(headers, at: i) }
        }
        let streamID: Int32
        if request.body.isEmpty {
            streamID = encoder.withFields { nv, count in
                nghttp2_submit_request(session, nil, nv, count, nil, nil)
            }
        } else {
            let body = OutgoingBody(request.body)
            stream.outgoing = body
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: Borrowed(body).opaque),
                read_callback: NGHTTP2Callbacks.bodyReader)
            streamID = encoder.withFields { nv, count in
                nghttp2_submit_request(session, nil, nv, count, &provider, nil)
            }
        }
        guard streamID > 0 else {
            completion(.failure(.submitFailed(String(cString: nghttp2_strerror(streamID)))))
            return
        }
        streams[streamID] = stream
        flushIfIdle()
    }

    /// The server's current SETTINGS_MAX_CONCURRENT_STREAMS as last acknowledged by nghttp2.
    var remoteMaxConcurrentStreams: Int {
        guard let session else { return 0 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Sends GOAWAY and lets in-flight requests finish.
    func closeGracefully() {
        guard let session, state == .open else {
            close(reason: "closed by the client", abortive: false)
            return
        }
        _ = nghttp2_session_terminate_session2(session, nghttp2_session_get_last_proc_stream_id(session), H2ErrorCode.noError.rawValue)
        flushIfIdle()
    }

    // MARK: nghttp2 callbacks

    override func onHeader(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = streams[frame.pointee.hd.stream_id] else { return 0 }
        // `:status` is read from the bytes (0 unless all digits; nghttp2 checks it is three); the other fields are
        // kept as bytes (no String is made unless a caller reads one).
        if name.count == 7 && memcmpEqual(name.baseAddress!, (":status" as StaticString).utf8Start, 7) {
            var status = 0
            for b in value {
                guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { status = 0; break }
                status = status * 10 + Int(b - UInt8(ascii: "0"))
            }
            stream.status = status
        } else {
            stream.headers.append(name: name, value: value)
        }
        return 0
    }

    override func onData(streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 {
        streams[streamID]?.body.append(contentsOf: data)
        return 0
    }

    override func onFrameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if !serverSettingsReceived, frame.pointee.hd.type == UInt8(NGHTTP2_SETTINGS.rawValue),
           frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
            serverSettingsArrived()
        }
        if frame.pointee.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            goAwayReceived = true
            // Before the refusals below: their completions must find the connection no longer taking requests (a
            // sender then retries them elsewhere rather than counting them as failed).
            onGoAway?()
            let data = frame.pointee.goaway.opaque_data
            let len = frame.pointee.goaway.opaque_data_len
            lastGoAway = (frame.pointee.goaway.error_code,
                          data.map { Array(UnsafeBufferPointer(start: $0, count: len)) } ?? [])
            refuseStreams(above: frame.pointee.goaway.last_stream_id)
        }
        return 0
    }

    /// Fails the requests a GOAWAY says the server did not process (RFC 9113 §6.8: those above its last stream id)
    /// as refused, REFUSED_STREAM, which a sender may retry. nghttp2 does the same for streams it already sent, but
    /// one still queued is only dropped when the session next writes, and a server that closes right after its
    /// GOAWAY (as it may with nothing left to answer) got those reported as lost with the connection instead.
    private func refuseStreams(above last: Int32) {
        for id in streams.keys.filter({ $0 > last }).sorted() {
            streams.removeValue(forKey: id)?.completion(.failure(.streamReset(H2ErrorCode.refusedStream.rawValue)))
        }
    }

    /// The error code and debug data of the last GOAWAY received.
    private(set) var lastGoAway: (UInt32, [UInt8])?

    override func onStreamClose(streamID: Int32, errorCode: UInt32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        if errorCode == 0 && stream.status != 0 {
            stream.completion(.success(H2Response(status: stream.status, fields: stream.headers, body: stream.body)))
        } else {
            stream.completion(.failure(.streamReset(errorCode)))
        }
        return 0
    }

    override func onFrameNotSent(_ frame: UnsafePointer<nghttp2_frame>, errorCode: Int32) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = streams.removeValue(forKey: frame.pointee.hd.stream_id) else { return 0 }
        stream.completion(.failure(.submitFailed(String(cString: nghttp2_strerror(errorCode)))))
        return 0
    }

    private func cancelSettingsTimer() {
        if let settingsTimer { loop.cancelTimer(settingsTimer) }
        settingsTimer = nil
    }

    override func didClose() {
        cancelSettingsTimer()
        let reason = closeReason ?? "closed"
        // First, so the completions below already see the connection closed (`acceptsRequests`).
        onClosed?(reason)
        onConnect?(.failure(.connectFailed(reason)))
        onConnect = nil
        let pending = streams
        streams.removeAll()
        for (_, s) in pending { s.completion(.failure(.connectionClosed(reason))) }
        let queued = waiting
        waiting.removeAll()
        for (_, c) in queued { c(.failure(.connectionClosed(reason))) }
        // Both hold the connection's handle, which holds this core: dropped once closed, so neither outlives it.
        onClosed = nil
        onGoAway = nil
    }
}
