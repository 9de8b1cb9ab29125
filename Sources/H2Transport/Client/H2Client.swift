import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Opens HTTP/2-over-TLS connections on its own event loops (or a shared group).
///
/// Used by the scenario runner and the load generator: many connections, many concurrent streams each,
/// client certificates, custom trust roots and SNI.
public final class H2Client: Sendable {
    private let context: TLSContext
    private let group: EventLoopGroup
    private let ownsGroup: Bool
    private let settings: H2Settings
    private let serverSettingsTimeout: Duration

    /// - Parameters:
    ///   - tls: trust roots, client certificate, ALPN offer.
    ///   - eventLoops: loops to create when `group` is nil (default 1).
    ///   - group: share an existing group instead (the caller shuts it down).
    ///   - serverSettingsTimeout: how long `connect` waits, after the TLS handshake, for the server's SETTINGS.
    public init(tls: TLSClientConfiguration, eventLoops: Int = 1, group: EventLoopGroup? = nil,
                settings: H2Settings = H2Settings(maxConcurrentStreams: 100),
                serverSettingsTimeout: Duration = .seconds(10)) throws {
        self.context = try TLSContext(client: tls)
        if let group {
            self.group = group
            self.ownsGroup = false
        } else {
            self.group = try EventLoopGroup(threads: eventLoops, name: "h2-client")
            self.ownsGroup = true
        }
        self.settings = settings
        self.serverSettingsTimeout = serverSettingsTimeout
    }

    /// Connects, completes the TLS handshake and waits for the server's SETTINGS (its connection preface), so the
    /// first requests already respect its stream limit: sent before it, requests beyond the limit were refused
    /// (REFUSED_STREAM), which a load generator counted as errors.
    /// - Parameters:
    ///   - host: numeric address to dial.
    ///   - serverName: SNI and the name verified in the certificate (e.g. "api.push.apple.com"); nil sends
    ///     no SNI and verifies `host` as an IP address.
    public func connect(host: String, port: Int, serverName: String? = nil) async throws -> H2ClientConnection {
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<H2ClientConnection, Error>) in
            connect(host: host, port: port, serverName: serverName) { cont.resume(with: $0) }
        }
    }

    /// The same, calling `completion` on the connection's loop: for callers on threads of their own that must not
    /// wait on Swift concurrency's pool.
    public func connect(host: String, port: Int, serverName: String? = nil,
                        completion: @escaping @Sendable (Result<H2ClientConnection, any Error>) -> Void) {
        let address: SocketAddress
        do {
            address = try SocketAddress(host: host, port: port)
        } catch {
            completion(.failure(error))
            return
        }
        let loop = group.nextLoop()
        let context = self.context
        let settings = self.settings, serverSettingsTimeout = self.serverSettingsTimeout
        loop.execute {
            let fd: Int32
            do throws(IOError) {
                fd = try Socket.connect(to: address)
            } catch {
                // `connectFailed` already says "connect failed"; the errno text is the part worth adding.
                completion(.failure(H2ClientError.connectFailed(error.reason)))
                return
            }
            let tls: TLSSession
            do {
                tls = try TLSSession(context: context, loop: loop, isServer: false, serverName: serverName,
                                     verifyAddress: serverName == nil ? host : nil)
            } catch {
                Glibc.close(fd)
                completion(.failure(H2ClientError.connectFailed("\(error)")))
                return
            }
            var handle: H2ClientConnection? = nil
            let core = H2ClientConnectionCore(fd: fd, loop: loop, tls: tls, settings: settings,
                                              serverSettingsTimeout: serverSettingsTimeout) { result in
                switch result {
                case .success: completion(.success(handle!))
                case .failure(let e): completion(.failure(e))
                }
            }
            handle = H2ClientConnection(core: core, loop: loop)
            let flagBox = UncheckedBox(handle!)
            core.onClosed = { _ in flagBox.value.markClosed() }
            core.onGoAway = { flagBox.value.markGoingAway() }
            do {
                try loop.register(fd: fd, core)
            } catch {
                core.close(reason: "\(error)", abortive: true)
            }
        }
    }

    /// Stops the client's own loops (connections on them are dropped).
    public func shutdown() {
        if ownsGroup { group.shutdown() }
    }
}
