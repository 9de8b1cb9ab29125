import Synchronization

/// A multiplexed HTTP/2-over-TLS client connection, usable from any thread.
///
/// Requests hop to the connection's event loop; completions run on that loop, so they must be quick
/// (hand work elsewhere) — the load generator counts responses there directly.
public final class H2ClientConnection: @unchecked Sendable {
    // @unchecked Sendable: `core` is loop-confined and only touched inside `loop.execute` or on the loop.
    private let core: H2ClientConnectionCore
    public let eventLoop: EventLoop
    private let closedFlag = Atomic<Bool>(false)
    private let goingAwayFlag = Atomic<Bool>(false)

    init(core: H2ClientConnectionCore, loop: EventLoop) {
        self.core = core
        self.eventLoop = loop
    }

    func markClosed() { closedFlag.store(true, ordering: .releasing) }
    func markGoingAway() { goingAwayFlag.store(true, ordering: .releasing) }

    /// Whether the connection has closed (for whatever reason).
    public var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Whether a request sent now can start a stream: false once the server sent GOAWAY (requests already in
    /// flight may still be answered) or the connection closed. A sender checks it to move new requests to another
    /// connection instead of having them refused; on the connection's loop it is exact, since GOAWAY is read there.
    public var acceptsRequests: Bool {
        !goingAwayFlag.load(ordering: .acquiring) && !closedFlag.load(ordering: .acquiring)
    }

    /// Sends `request`; `completion` runs on the connection's loop with the full response or the failure.
    public func send(_ request: H2Request, completion: @escaping @Sendable (Result<H2Response, H2ClientError>) -> Void) {
        let box = UncheckedBox(core)
        if eventLoop.inEventLoop {
            core.submit(request, completion: completion)
        } else {
            eventLoop.execute { box.value.submit(request, completion: completion) }
        }
    }

    /// Sends `request` and waits for the response.
    public func send(_ request: H2Request) async throws(H2ClientError) -> H2Response {
        let result = await withCheckedContinuation { (cont: CheckedContinuation<Result<H2Response, H2ClientError>, Never>) in
            send(request) { cont.resume(returning: $0) }
        }
        return try result.get()
    }

    /// The last GOAWAY received: HTTP/2 error code and debug data (APNs puts a JSON reason there).
    public func lastGoAway() async -> (errorCode: UInt32, debugData: [UInt8])? {
        await withCheckedContinuation { cont in
            let box = UncheckedBox(core)
            eventLoop.execute {
                let g = box.value.lastGoAway
                cont.resume(returning: g.map { (errorCode: $0.0, debugData: $0.1) })
            }
        }
    }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS as currently in force.
    public func remoteMaxConcurrentStreams() async -> Int {
        await withCheckedContinuation { cont in
            let box = UncheckedBox(core)
            eventLoop.execute { cont.resume(returning: box.value.remoteMaxConcurrentStreams) }
        }
    }

    /// Sends GOAWAY; in-flight requests finish, then the connection closes.
    public func close() {
        let box = UncheckedBox(core)
        eventLoop.execute { box.value.closeGracefully() }
    }

    /// Closes the socket at once (a client that vanishes); `reset` sends RST.
    public func abort(reset: Bool = false) {
        let box = UncheckedBox(core)
        eventLoop.execute { box.value.close(reason: "aborted by the client", abortive: reset) }
    }
}
