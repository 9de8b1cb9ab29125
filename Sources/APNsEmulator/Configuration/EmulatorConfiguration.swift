import Foundation

/// Everything `apns-emulator serve` can be told at start.
///
/// A value type so the CLI, tests (through `EmulatorTesting`) and the Docker image build it the same way;
/// the emulator copies it at start and never reads it again.
public struct EmulatorConfiguration: Sendable, Equatable {
    /// The address every listener binds to. `127.0.0.1` keeps the emulator off the network by default.
    public var host: String = "127.0.0.1"
    /// Port of the listener whose connections are production unless SNI/`:authority` says otherwise; 0 picks one.
    public var productionPort: Int = 2197
    /// Port of the sandbox listener; 0 picks one.
    public var sandboxPort: Int = 2198
    /// Port of the plain HTTP/1.1 control API; 0 picks one.
    public var controlPort: Int = 8765
    /// Where to write the ready JSON once every listener accepts connections (nil: nowhere).
    public var readyFile: String? = nil
    /// Folder holding `ca.pem`, `server.pem` and `server-key.pem` (the bundled dev certificates by default).
    public var certificatesDirectory: String = "certs"
    /// Event-loop threads serving APNs connections; nil means one per core.
    public var eventLoops: Int? = nil
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to every new connection (Apple has been seen at 500–1500).
    public var maxConcurrentStreams: Int = 1000
    /// Bodies beyond this are not buffered; the handler sees the request marked as over the limit.
    public var maxRequestBodyBytes: Int = 64 * 1024
    /// A connection that has not finished its TLS handshake by then is closed.
    public var handshakeTimeoutSeconds: Double = 10
    /// A connection with no open stream and no traffic for this long is closed with GOAWAY (0: never).
    public var idleTimeoutSeconds: Double = 3600
    /// How long graceful shutdown waits for in-flight streams before closing connections anyway.
    public var shutdownGraceSeconds: Double = 10
    /// Whether TLS client certificates are requested (certificate auth); they are verified against `ca.pem`.
    public var requestClientCertificates: Bool = true
    /// The answer of the placeholder handler that stands in until the APNs handler exists.
    public var placeholderStatus: Int = 200

    public init() {}
}
