/// How an HTTP/2 server behaves; the same for all its listeners.
public struct H2ServerConfiguration: Sendable {
    public var tls: TLSServerConfiguration
    /// SETTINGS sent to every new connection.
    public var settings: H2Settings = H2Settings()
    /// Bodies beyond this are discarded and the request marked `bodyExceededLimit`.
    public var maxRequestBodyBytes: Int = 64 * 1024
    /// A connection not through its TLS handshake by then is closed (slowloris defence); nil: never.
    public var handshakeTimeout: Duration? = .seconds(10)
    /// A connection through its handshake that has not sent the HTTP/2 preface and SETTINGS by then is closed
    /// (a client dribbling the preface would otherwise be held until the idle timeout); nil: never.
    public var prefaceTimeout: Duration? = .seconds(10)
    /// Connections beyond this many (open or in their handshake) are closed as soon as they are accepted, and the
    /// others served as before; nil: no limit but the process's file descriptors.
    public var maxConnections: Int? = nil
    /// A connection with no open stream for this long gets GOAWAY and is closed; nil: never.
    public var idleTimeout: Duration? = .seconds(3600)
    /// GOAWAY debug data sent on idle close (APNs sends a JSON reason).
    public var idleGoAwayPayload: [UInt8] = []
    /// How long graceful shutdown waits for in-flight streams before closing connections.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Event loops; nil means one per core.
    public var eventLoops: Int? = nil

    public init(tls: TLSServerConfiguration) {
        self.tls = tls
    }
}

/// One address to listen on, with the name the application knows it by.
public struct H2ListenerSpec: Sendable {
    public var name: String
    public var address: SocketAddress

    public init(name: String, host: String, port: Int) throws(IOError) {
        self.name = name
        self.address = try SocketAddress(host: host, port: port)
    }
}
