import CMicroHTTPD
import CShims
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: plain for the control API (curl and Python `requests` must work with no
/// flags; a hand-written HTTP/1.1 parser is out of the question), over TLS for the providers' front doors.
///
/// We bind the socket ourselves (port 0 support, one address type for all listeners) and hand it to
/// libmicrohttpd, which runs a small pool of polling threads and calls the handler on them, so concurrent callers
/// (test workers, a dashboard) are served in parallel. A request the handler says `waits` (a long-poll, the settle
/// barrier) is answered on a thread of its own with its connection suspended, so it holds up no other
/// connection. The handler must therefore be safe to call concurrently (`Sendable`).
public final class HTTP1Server: Sendable {
    private let handler: any HTTP1Handler
    private let maxBodyBytes: Int
    private let daemon = Mutex<DaemonHandle?>(nil)
    private let context: Unmanaged<HTTP1ServerContext>

    private let threads: Int
    private let connectionLimit: Int
    private let idleTimeoutSeconds: Int
    private let tls: PEMIdentity?

    /// - Parameters:
    ///   - threads: libmicrohttpd's polling threads; each connection stays on one of them.
    ///   - connectionLimit: connections held at once (libmicrohttpd polls with epoll, so well past select's 1,024);
    ///     a flood of silent ones past it is refused while those already served go on.
    ///   - idleTimeoutSeconds: a connection that sends nothing for this long is closed (slowloris), not held.
    ///   - tls: serve HTTPS with this certificate chain (leaf first) and private key, both PEM.
    public init(handler: any HTTP1Handler, maxBodyBytes: Int = 16 * 1024 * 1024, threads: Int = 4,
                connectionLimit: Int = 10_000, idleTimeoutSeconds: Int = 30,
                tls: (certificateChainPEM: String, privateKeyPEM: String)? = nil) {
        self.tls = tls.map { PEMIdentity(chain: $0.certificateChainPEM, key: $0.privateKeyPEM) }
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        self.threads = max(1, threads)
        self.connectionLimit = max(1, connectionLimit)
        self.idleTimeoutSeconds = max(1, idleTimeoutSeconds)
        self.context = Unmanaged.passRetained(HTTP1ServerContext(handler: handler, maxBodyBytes: maxBodyBytes))
    }

    deinit {
        stop()
        context.release()
    }

    /// Binds `host:port` (0 picks a port) and starts serving. Returns the bound address.
    public func start(host: String, port: Int) throws -> SocketAddress {
        let address = try SocketAddress(host: host, port: port)
        let fd = try Socket.listen(on: address, backlog: 256)
        let bound = Socket.localAddress(of: fd) ?? address
        let flags = UInt32(MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        let started: OpaquePointer?
        if let tls {
            started = CShims_MHD_start_tls_daemon(
                flags, fd, HTTP1ServerContext.accessHandler, context.toOpaque(),
                HTTP1ServerContext.completedHandler, context.toOpaque(), UInt32(idleTimeoutSeconds),
                UInt32(connectionLimit), UInt32(threads), tls.chain, tls.key)
        } else {
            started = CShims_MHD_start_daemon(
                flags, fd, HTTP1ServerContext.accessHandler, context.toOpaque(),
                HTTP1ServerContext.completedHandler, context.toOpaque(), UInt32(idleTimeoutSeconds),
                UInt32(connectionLimit), UInt32(threads))
        }
        guard let d = started else {
            Glibc.close(fd)
            throw IOError(errno: EINVAL, function: "MHD_start_daemon(\(bound))")
        }
        daemon.withLock { $0 = DaemonHandle(pointer: d) }
        return bound
    }

    /// Stops serving; idempotent.
    public func stop() {
        let d = daemon.withLock { d -> DaemonHandle? in
            let old = d
            d = nil
            return old
        }
        guard let d else { return }
        // libmicrohttpd refuses to stop with connections suspended: waiting answers end now, with a 503.
        context.takeUnretainedValue().waiting.answerAll(HTTP1Response(status: 503, headers: [H2Header("content-type", "application/json")],
                                                body: Array(#"{"error":"the emulator is stopping"}"#.utf8)))
        MHD_stop_daemon(d.pointer)
    }
}

/// A TLS identity as C strings: libmicrohttpd keeps the pointers it is given, so they live (and are freed) with
/// the server, after its daemon has stopped.
final class PEMIdentity: @unchecked Sendable {
    // @unchecked Sendable: both buffers are written once here and only read (by libmicrohttpd) until deinit.
    let chain: UnsafeMutablePointer<CChar>
    let key: UnsafeMutablePointer<CChar>

    init(chain: String, key: String) {
        self.chain = strdup(chain)
        self.key = strdup(key)
    }

    deinit {
        free(chain)
        free(key)
    }
}

/// The running daemon, handed between threads only to be stopped.
struct DaemonHandle: @unchecked Sendable {
    // @unchecked Sendable: libmicrohttpd's MHD_stop_daemon may be called from any thread.
    let pointer: OpaquePointer
}

/// State shared with libmicrohttpd's callbacks (retained for the server's lifetime).
final class HTTP1ServerContext: Sendable {
    let handler: any HTTP1Handler
    let maxBodyBytes: Int
    let waiting = SuspendedRequests()

    init(handler: any HTTP1Handler, maxBodyBytes: Int) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
    }

    /// Per-request accumulation across libmicrohttpd's repeated handler calls.
    final class Pending {
        var body: [UInt8] = []
        var exceeded = false
        /// A waiting request's answer, once its own thread has it (read on the polling thread after the resume).
        var answer: SuspendedRequests.Entry?
    }

    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
        guard let cls, let connection, let conCls, let uploadSize else { return MHD_Result(rawValue: 0)! }
        let context = Unmanaged<HTTP1ServerContext>.fromOpaque(cls).takeUnretainedValue()
        // First call for a request: only set up state (libmicrohttpd's documented protocol).
        guard let existing = conCls.pointee else {
            conCls.pointee = Unmanaged.passRetained(Pending()).toOpaque()
            return MHD_Result(rawValue: 1)!
        }
        let pending = Unmanaged<Pending>.fromOpaque(existing).takeUnretainedValue()
        // Called again after a resume: the waiting request's answer is ready.
        if let entry = pending.answer {
            guard let response = entry.takeAnswer() else { return MHD_Result(rawValue: 0)! }
            pending.answer = nil
            return queue(response, on: connection)
        }
        if uploadSize.pointee > 0 {
            if let uploadData, !pending.exceeded {
                if pending.body.count + uploadSize.pointee > context.maxBodyBytes {
                    pending.exceeded = true
                    pending.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return MHD_Result(rawValue: 1)!
        }
        var request = HTTP1Request(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            body: pending.body, bodyExceededLimit: pending.exceeded)
        var collector = Collector()
        withUnsafeMutablePointer(to: &collector) { p in
            _ = MHD_get_connection_values(connection, MHD_ValueKind(rawValue: 8)!, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result(rawValue: 1)! }
                cls.assumingMemoryBound(to: Collector.self).pointee.query.append(
                    (String(cString: key), value.map { String(cString: $0) } ?? ""))
                return MHD_Result(rawValue: 1)!
            }, p)
            _ = MHD_get_connection_values(connection, MHD_ValueKind(rawValue: 1)!, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result(rawValue: 1)! }
                cls.assumingMemoryBound(to: Collector.self).pointee.headers.append(
                    H2Header(String(cString: key), value.map { String(cString: $0) } ?? ""))
                return MHD_Result(rawValue: 1)!
            }, p)
        }
        request.query = collector.query
        request.headers = collector.headers
        if context.handler.waits(request) {
            // Off this polling thread: the connection is parked until the answer is ready, then resumed.
            guard let entry = context.waiting.suspend(connection) else {
                return queue(HTTP1Response(status: 503, headers: [H2Header("content-type", "application/json")], body: Array(
                    #"{"error":"\#(SuspendedRequests.capacity) requests are waiting already: try again"}"#.utf8)), on: connection)
            }
            pending.answer = entry
            let handler = context.handler, waiting = context.waiting
            let job = request
            Thread.detachNewThread {
                waiting.answer(entry, with: handler.handle(job))
            }
            return MHD_Result(rawValue: 1)!
        }
        return queue(context.handler.handle(request), on: connection)
    }

    static func queue(_ response: HTTP1Response, on connection: OpaquePointer) -> MHD_Result {
        let mhdResponse = response.body.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), MHD_ResponseMemoryMode(rawValue: 2)!)
        }
        guard let mhdResponse else { return MHD_Result(rawValue: 0)! }
        for h in response.headers { _ = MHD_add_response_header(mhdResponse, h.name, h.value) }
        let rc = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return rc
    }

    struct Collector {
        var query: [(name: String, value: String)] = []
        var headers: [H2Header] = []
    }

    static let completedHandler: MHD_RequestCompletedCallback = { _, _, conCls, _ in
        guard let conCls, let p = conCls.pointee else { return }
        Unmanaged<Pending>.fromOpaque(p).release()
        conCls.pointee = nil
    }
}
