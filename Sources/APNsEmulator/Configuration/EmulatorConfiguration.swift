import APNsProtocol
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
    /// Port of the providers' front doors (FCM's and OneSignal's APIs over TLS); 0 picks one, nil serves none.
    public var frontDoorPort: Int? = 2199
    /// The FCM legacy API answers as after its shutdown (every target `DeprecatedApi`).
    public var fcmLegacyShutDown = false
    /// Where to write the ready JSON once every listener accepts connections (nil: nowhere).
    public var readyFile: String? = nil
    /// Folder holding `ca.pem`, `server.pem` and `server-key.pem` (the bundled dev certificates by default).
    public var certificatesDirectory: String = "certs"
    /// Event-loop threads serving APNs connections; nil means one per core.
    public var eventLoops: Int? = nil
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised to every new connection (Apple has been seen at 500–1500).
    public var maxConcurrentStreams: Int = 1000
    /// Advertise SETTINGS_NO_RFC7540_PRIORITIES=1 (`--no-rfc7540-priorities`).
    public var noRFC7540Priorities = false
    /// Bodies beyond this are not buffered; the handler sees the request marked as over the limit.
    public var maxRequestBodyBytes: Int = 64 * 1024
    /// A connection that has not finished its TLS handshake by then is closed.
    public var handshakeTimeoutSeconds: Double = 10
    /// A connection through its TLS handshake that has not sent the HTTP/2 preface by then is closed (0: never).
    public var prefaceTimeoutSeconds: Double = 10
    /// APNs connections beyond this many are closed as they are accepted; the others are served on (nil: no limit).
    public var maxConnections: Int? = nil
    /// Control-port connections held at once; more are refused as they come (`serve` sizes it to the open-file
    /// limit).
    public var controlConnectionLimit = 10_000
    /// A connection with no open stream and no traffic for this long is closed with GOAWAY (0: never).
    public var idleTimeoutSeconds: Double = 3600
    /// How long graceful shutdown waits for in-flight streams before closing connections anyway.
    public var shutdownGraceSeconds: Double = 10
    /// Whether TLS client certificates are requested (certificate auth); they are verified against `ca.pem`.
    public var requestClientCertificates: Bool = true
    /// An Apple host named by `:authority`/`host` or SNI chooses the environment,
    /// so one listener can serve both (clients that dial an IP get the listener's). Off: the listener alone decides.
    public var environmentFromHostNames = true
    /// Benchmarking aid: answer every APNs request 200 with no validation, journal or registry, so a bench
    /// can measure the TLS + HTTP/2 transport alone against the C reference server (`--transport-only`).
    public var transportOnly = false
    /// Folder of the embedded state store (SQLite) holding keys, tokens and faults across restarts.
    public var stateDirectory: String = ".emulator-state"
    /// Keep everything in memory only (`--ephemeral`): nothing is read or written under `stateDirectory`.
    public var ephemeral = false
    /// A Redis server several emulators share live (`--state-store redis://HOST:PORT[/DB]`): keys, tokens,
    /// faults and shaping, the cluster journal and the replicas' reports. Replaces `stateDirectory`.
    public var stateStore: String? = nil
    /// This emulator's name among the replicas sharing `stateStore` (`--replica-id`; the host name and
    /// process id unless set).
    public var replicaId: String = EmulatorConfiguration.defaultReplicaId
    /// The host other replicas reach this one's control API on (`--advertise-host`); nil: `host`, or this
    /// machine's host name when `host` is a wildcard address.
    public var advertiseHost: String? = nil
    /// When an accepted push is answered with a shared store (`--cluster-journal`).
    public var clusterJournal = ClusterJournalMode.behind
    /// Bearer token every control request must carry; required when the control port is not on loopback.
    public var controlToken: String? = nil
    /// Apple-observed connection behaviours (see `ConnectionBehavior`); `--realism strict` turns them on.
    public var connectionBehavior = ConnectionBehavior.documented
    /// Every Decision where Apple's text is unclear, as a switch.
    public var policy = ValidationPolicy()
    /// Record every APNs request in the journal (`--no-journal` for load tests).
    public var journalEnabled = true
    /// Journal entries kept; the oldest are dropped beyond this.
    public var journalCapacity = 100_000
    /// Time moves only through `POST /_emulator/clock/advance` (starting at the real now): scenarios and
    /// manual checks of the hour-long rules without waiting.
    public var manualClock = false
    /// A state snapshot (`GET /_emulator/state`) imported at start, replacing stored keys, tokens and faults:
    /// how replicas behind a load balancer all accept the same tokens.
    public var importStateFile: String?
    /// Latency, connection rate limit, GOAWAY recycling and brownout at start (stream limit and token rate
    /// limit come from their own fields above); `PUT /_emulator/shaping` changes them live.
    public var shaping = ShapingSettings()
    /// Time from acceptance to arrival on an online virtual device, drawn per push (`--delivery-latency`;
    /// none by default). Needs the real clock.
    public var deliveryLatency = ShapingSettings.Latency.none
    /// How long APNs holds priority 5 and 1 pushes before delivering them to an online device (0: at once).
    public var lowPriorityDelaySeconds: Double = 0
    /// TooManyRequests when one token gets more than this many pushes per `tokenRateWindowSeconds` (0: off).
    public var tokenRateLimit = 0
    public var tokenRateWindowSeconds: Double = 1
    /// Broadcast channels an app may have per environment; one more answers CannotCreateChannelConfig.
    public var maximumChannelsPerApp = 10_000
    /// Register the bundled sample key (`certs/AuthKey_DEVKEY1234.p8`) at start, so `make run` can be
    /// curled with a token minted by `apns-emulator token` at once.
    public var registerSampleKey = true

    public init() {}

    /// An emulator inside another program (a test, `apns-emulator exec`): 127.0.0.1 only, every port chosen by the
    /// kernel, nothing written to disk.
    /// - Parameters:
    ///   - eventLoops: nil for the default (one per core).
    ///   - shutdownGraceSeconds: how long in-flight streams get at shutdown (tests want it short); nil for the default.
    public static func inProcess(certificatesDirectory: String, eventLoops: Int? = nil,
                                 shutdownGraceSeconds: Double? = nil) -> EmulatorConfiguration {
        var c = EmulatorConfiguration()
        c.host = "127.0.0.1"
        c.productionPort = 0
        c.sandboxPort = 0
        c.controlPort = 0
        c.frontDoorPort = 0
        c.ephemeral = true
        if let eventLoops { c.eventLoops = eventLoops }
        if let shutdownGraceSeconds { c.shutdownGraceSeconds = shutdownGraceSeconds }
        c.certificatesDirectory = certificatesDirectory
        return c
    }
}

/// Connection behaviours seen on real APNs that the documentation does not promise.
public struct ConnectionBehavior: Sendable, Equatable, Codable {
    /// With token auth, advertise MAX_CONCURRENT_STREAMS 1 until a request with a valid token succeeded.
    public var oneStreamUntilAuthenticated: Bool
    /// Drop MAX_CONCURRENT_STREAMS to 1 after a rejected request, restore it after the next accepted one.
    public var throttleAfterRejection: Bool
    /// Send GOAWAY (with a JSON reason) after this many rejected requests on a connection (0: never);
    /// BadDeviceToken counts double (Apple closes sooner for it). 410s are not errors.
    public var goAwayAfterErrors: Int

    public init(oneStreamUntilAuthenticated: Bool, throttleAfterRejection: Bool, goAwayAfterErrors: Int) {
        self.oneStreamUntilAuthenticated = oneStreamUntilAuthenticated
        self.throttleAfterRejection = throttleAfterRejection
        self.goAwayAfterErrors = goAwayAfterErrors
    }

    /// Only what Apple documents (the default).
    public static let documented = ConnectionBehavior(
        oneStreamUntilAuthenticated: false, throttleAfterRejection: false, goAwayAfterErrors: 0)
    /// Everything observed on real APNs.
    public static let strict = ConnectionBehavior(
        oneStreamUntilAuthenticated: true, throttleAfterRejection: true, goAwayAfterErrors: 10)

    /// The profile's name for logs and the banner.
    public var profileName: String {
        switch self {
        case .documented: return "documented"
        case .strict: return "strict"
        default: return "custom"
        }
    }
}

extension EmulatorConfiguration {
    /// `<host name>-<pid>`: unique among processes, and readable in the cluster's listings.
    public static var defaultReplicaId: String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "replica"
        return "\(host)-\(getpid())"
    }

    /// What `--replica-id` may be: it names Redis keys and travels in change notices.
    public static func isValidReplicaId(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f }
    }
}
