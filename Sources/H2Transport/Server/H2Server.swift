import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2-over-TLS server on its own event loops, with any number of named listeners.
///
/// ### Overview
/// Listeners live on loop 0, which accepts and hands each socket to the next loop round-robin (loop 0
/// serves connections too). Each connection is then confined to its loop. `shutdown()` is graceful:
/// listeners close, every connection gets GOAWAY, in-flight streams finish (bounded by the grace period),
/// then the loops stop.
public final class H2Server: Sendable {
    private let configuration: H2ServerConfiguration
    private let handler: AnyServerHandler
    private let group: EventLoopGroup
    private let context: TLSContext
    private let registry: ServerConnectionRegistry
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case running([ListenerBox])
        case stopped
    }

    /// Listener objects belong to loop 0; the box only carries them there.
    private struct ListenerBox: @unchecked Sendable {
        // @unchecked Sendable: `listener` is used only on loop 0.
        let listener: Listener
    }

    /// Builds the TLS context and the event loops; nothing listens until `start`.
    public init<Handler: H2ServerHandler>(configuration: H2ServerConfiguration, handler: Handler) throws {
        self.configuration = configuration
        self.handler = TypedServerHandler(handler)
        self.context = try TLSContext(server: configuration.tls)
        self.group = try EventLoopGroup(threads: configuration.eventLoops, name: "h2-server")
        self.registry = ServerConnectionRegistry(loops: group.loops)
    }

    /// Connections currently open (handshaking included).
    public var connectionCount: Int { registry.count.load(ordering: .relaxed) }

    /// What the transport refused, for metrics.
    public var counters: H2ServerCounters {
        H2ServerCounters(headerListsRefused: registry.headerListsRefused.load(ordering: .relaxed),
                         prefaceTimeouts: registry.prefaceTimeouts.load(ordering: .relaxed),
                         connectionsRefused: registry.connectionsRefused.load(ordering: .relaxed))
    }

    /// Binds every listener and starts accepting. Returns the bound listeners (with real ports for port 0).
    public func start(listeners specs: [H2ListenerSpec]) throws -> [H2ListenerInfo] {
        var fds: [(Int32, H2ListenerInfo)] = []
        do {
            for spec in specs {
                let fd = try Socket.listen(on: spec.address)
                let bound = Socket.localAddress(of: fd) ?? spec.address
                fds.append((fd, H2ListenerInfo(name: spec.name, address: bound)))
            }
        } catch {
            for (fd, _) in fds { Glibc.close(fd) }
            throw error
        }
        let acceptLoop = group.loops[0]
        let boxes: [ListenerBox] = fds.map { fd, info in
            ListenerBox(listener: Listener(fd: fd, info: info, loop: acceptLoop) { [self] client, peer in
                self.dispatch(client: client, peer: peer, listener: info)
            })
        }
        let registered = DispatchSemaphore(value: 0)
        let failure = Mutex<Error?>(nil)
        acceptLoop.execute {
            for box in boxes {
                do {
                    try acceptLoop.register(fd: box.listener.fd, box.listener, edgeTriggered: false)
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            registered.signal()
        }
        registered.wait()
        if let error = failure.withLock({ $0 }) {
            closeListeners(boxes)
            throw error
        }
        state.withLock { $0 = .running(boxes) }
        return fds.map { $0.1 }
    }

    private func dispatch(client fd: Int32, peer: SocketAddress?, listener: H2ListenerInfo) {
        if let limit = configuration.maxConnections,
           registry.count.load(ordering: .relaxed) + registry.pending.load(ordering: .relaxed) >= limit {
            // Refused before any TLS work, so a flood costs an accept and a close; the open connections go on.
            registry.connectionsRefused.wrappingAdd(1, ordering: .relaxed)
            Glibc.close(fd)
            return
        }
        registry.pending.wrappingAdd(1, ordering: .relaxed)
        let loop = group.nextLoop()
        loop.execute { [self] in
            self.adopt(fd: fd, peer: peer, listener: listener, on: loop)
            self.registry.pending.wrappingSubtract(1, ordering: .relaxed)
        }
    }

    private func adopt(fd: Int32, peer: SocketAddress?, listener: H2ListenerInfo, on loop: EventLoop) {
        guard case .running = state.withLock({ $0 }) else {
            Glibc.close(fd)
            return
        }
        let tls: TLSSession
        do {
            tls = try TLSSession(context: context, loop: loop, isServer: true)
        } catch {
            Glibc.close(fd)
            return
        }
        let connection = H2ServerConnection(
            fd: fd, loop: loop, tls: tls, id: registry.makeID(), listener: listener, remote: peer,
            config: configuration, handler: handler, registry: registry)
        do {
            try loop.register(fd: fd, connection)
        } catch {
            // Through the connection, not Glibc.close: it also cancels the handshake timer it armed, which
            // would otherwise close this fd number again later, after the kernel reused it.
            connection.closeNow(reset: true)
            return
        }
        registry.add(connection)
    }

    /// Stops accepting, sends GOAWAY to every connection, waits for in-flight streams (up to the grace
    /// period), closes what remains and stops the loops. Blocks the caller; safe to call twice.
    public func shutdown() {
        let boxes: [ListenerBox]
        switch state.withLock({ s -> State in
            let old = s
            s = .stopped
            return old
        }) {
        case .running(let b): boxes = b
        case .idle: boxes = []
        case .stopped: return
        }
        closeListeners(boxes)
        for loop in group.loops {
            let registry = self.registry
            loop.execute {
                for c in registry.connections(onLoop: loop.index) { c.beginGracefulShutdown() }
            }
        }
        let deadline = Date().addingTimeInterval(configuration.shutdownGracePeriod.seconds)
        while registry.count.load(ordering: .relaxed) > 0 && Date() < deadline {
            usleep(5_000)
        }
        let done = DispatchGroup()
        for loop in group.loops {
            done.enter()
            let registry = self.registry
            loop.execute {
                for c in registry.connections(onLoop: loop.index) { c.closeNow(reset: false) }
                done.leave()
            }
        }
        done.wait()
        group.shutdown()
    }

    private func closeListeners(_ boxes: [ListenerBox]) {
        let loop = group.loops[0]
        let closed = DispatchSemaphore(value: 0)
        loop.execute {
            for box in boxes { box.listener.close(on: loop) }
            closed.signal()
        }
        closed.wait()
    }
}

extension Duration {
    /// Seconds as a Double, for Foundation APIs.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
