import APNsEmulator
import APNsProtocol
import Foundation
import H2Transport
import StateStore

/// The running emulator: APNs listeners (production and sandbox) and the control API.
///
/// `start` returns once every listener accepts connections; `shutdown` is graceful and blocks until done.
public final class Emulator: Sendable {
    public let configuration: EmulatorConfiguration
    /// Registries, journal, faults and clock, shared by the APNs handler and the control API.
    public let services: EmulatorServices
    private let server: H2Server
    private let control: HTTP1Server
    private let caPath: String
    /// Higher layers plugged in (virtual devices): they see accepted pushes and add control endpoints.
    package let extensions: [any EmulatorExtension]
    /// With a shared store: hands pushes for other replicas' devices to them, and theirs for ours to the devices.
    private let deliveryRouter: ClusterDeliveryRouter?

    /// Loads certificates and stored state and prepares the loops; nothing listens until `start`.
    /// - Parameter clock: the time every APNs rule reads; a `ManualClock` makes time controllable.
    public convenience init(configuration: EmulatorConfiguration, clock: any EmulatorClock = SystemClock()) throws {
        try self.init(configuration: configuration, clock: clock, extensions: { _ in [] })
    }

    /// The same, with higher layers built over the emulator's services (see `EmulatorExtension`).
    package init(configuration: EmulatorConfiguration, clock: any EmulatorClock,
                 extensions makeExtensions: (EmulatorServices) throws -> [any EmulatorExtension]) throws {
        self.configuration = configuration
        if !NetworkAddress.isLoopback(configuration.host) && (configuration.controlToken ?? "").isEmpty {
            throw EmulatorError.controlTokenRequired(configuration.host)
        }
        if configuration.deliveryLatency != .none, clock is ManualClock { throw EmulatorError.deliveryLatencyNeedsRealClock }
        let dir = URL(fileURLWithPath: configuration.certificatesDirectory).standardizedFileURL
        let ca = dir.appendingPathComponent("ca.pem").path
        let chain = dir.appendingPathComponent("server.pem").path
        let key = dir.appendingPathComponent("server-key.pem").path
        for file in [ca, chain, key] where !FileManager.default.fileExists(atPath: file) {
            throw EmulatorError.missingCertificate(file)
        }
        self.caPath = ca
        var config = H2ServerConfiguration(tls: TLSServerConfiguration(
            certificateChainFile: chain, privateKeyFile: key,
            clientCertificateTrustFile: configuration.requestClientCertificates ? ca : nil))
        config.settings.maxConcurrentStreams = configuration.maxConcurrentStreams
        config.settings.noRFC7540Priorities = configuration.noRFC7540Priorities
        config.maxRequestBodyBytes = configuration.maxRequestBodyBytes
        config.handshakeTimeout = configuration.handshakeTimeoutSeconds > 0
            ? .milliseconds(Int64(configuration.handshakeTimeoutSeconds * 1000)) : nil
        config.prefaceTimeout = configuration.prefaceTimeoutSeconds > 0
            ? .milliseconds(Int64(configuration.prefaceTimeoutSeconds * 1000)) : nil
        config.maxConnections = configuration.maxConnections
        config.idleTimeout = configuration.idleTimeoutSeconds > 0
            ? .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)) : nil
        config.idleGoAwayPayload = Array(#"{"reason":"IdleTimeout"}"#.utf8)
        config.shutdownGracePeriod = .milliseconds(Int64(configuration.shutdownGraceSeconds * 1000))
        config.eventLoops = configuration.eventLoops
        self.services = try EmulatorServices(
            configuration: configuration, clock: clock, persistence: try makeStatePersistence(for: configuration))
        if let file = configuration.importStateFile {
            guard let data = FileManager.default.contents(atPath: file) else { throw EmulatorError.importFailed(file, "cannot read it") }
            do {
                try services.importState(try StateImportReader.read(Array(data)))
            } catch {
                throw EmulatorError.importFailed(file, "\(error)")
            }
        }
        let extensions = try makeExtensions(services)
        self.extensions = extensions
        let observers: [any AcceptedPushObserver] = extensions.filter(\.observesPushes)
        var router: ClusterDeliveryRouter?
        if let store = services.shared { router = ClusterDeliveryRouter(services: services, store: store, observers: observers) }
        self.deliveryRouter = router
        let server = configuration.transportOnly
            ? try H2Server(configuration: config, handler: StaticResponseHandler())
            : try H2Server(configuration: config, handler: APNsHandler(services: services,
                                                                        observers: observers + (router.map { [$0] } ?? [])))
        self.server = server
        self.control = HTTP1Server(handler: ControlAPI(
            services: services, controlToken: configuration.controlToken, extensions: extensions,
            transportCounters: { server.counters }, deliveryRouter: router), maxBodyBytes: ControlAPI.maxBodyBytes,
            connectionLimit: configuration.controlConnectionLimit)
        // Another replica's reset reaches the devices and the other layers as this one's would. Weak: the extensions
        // hold the services, so the services holding them would keep every emulator alive after `shutdown`.
        services.onClusterReset { [weak self] in for ext in self?.extensions ?? [] { ext.reset() } }
        services.onClusterClockMoved { [weak self] now in for ext in self?.extensions ?? [] { ext.clockAdvanced(to: now) } }
    }

    /// Binds the APNs listeners and the control port, writes the ready file, and returns the endpoints.
    public func start() throws -> EmulatorEndpoints {
        let host = configuration.host
        let listeners: [H2ListenerInfo]
        do {
            listeners = try server.start(listeners: [
                H2ListenerSpec(name: "production", host: host, port: configuration.productionPort),
                H2ListenerSpec(name: "sandbox", host: host, port: configuration.sandboxPort),
            ])
        } catch let error as IOError where error.errno == EADDRINUSE {
            let sandbox = configuration.sandboxPort != 0 && error.function.hasSuffix(":\(configuration.sandboxPort))")
            throw sandbox ? EmulatorError.portInUse(listener: "sandbox", host: host, port: configuration.sandboxPort,
                                                    flag: "--sandbox-port")
                : EmulatorError.portInUse(listener: "production", host: host, port: configuration.productionPort,
                                          flag: "--production-port")
        }
        let controlAddress: SocketAddress
        do {
            controlAddress = try control.start(host: host, port: configuration.controlPort)
        } catch {
            server.shutdown()
            if let e = error as? IOError, e.errno == EADDRINUSE {
                throw EmulatorError.portInUse(listener: "control", host: host, port: configuration.controlPort,
                                              flag: "--control-port")
            }
            throw error
        }
        func url(_ scheme: String, _ address: SocketAddress) -> String {
            "\(scheme)://\(Self.displayHost(host)):\(address.port)"
        }
        var endpoints = EmulatorEndpoints(
            production: url("https", listeners[0].address), sandbox: url("https", listeners[1].address),
            control: url("http", controlAddress), ca: caPath)
        do {
            for ext in extensions { endpoints = try ext.started(at: endpoints) }
        } catch {
            shutdown()
            throw error
        }
        services.endpoints.withLock { $0 = endpoints }
        deliveryRouter?.start()
        services.startReplication()
        if let readyFile = configuration.readyFile {
            try endpoints.writeReadyFile(to: readyFile)
        }
        return endpoints
    }

    /// Connections currently open on the APNs listeners.
    public var connectionCount: Int { server.connectionCount }

    /// What the APNs listeners' transport refused so far.
    public var transportCounters: H2ServerCounters { server.counters }

    /// Stops accepting, lets in-flight pushes finish (bounded by the grace period) and stops everything.
    /// Closes the listeners (in-flight streams get the grace period), stops the extensions (the devices take
    /// the pushes still on their way), then the control API, which a `settle` may be waiting on until then.
    public func shutdown() {
        server.shutdown()
        // After the listeners: the pushes they finished answering are handed over (and the inbox stops feeding the
        // devices before they stop), then copied to the cluster journal.
        deliveryRouter?.stop()
        for ext in extensions { ext.shutdown() }
        services.stopReplication()
        control.stop()
    }

    /// A wildcard bind is reached through loopback; IPv6 literals need brackets in URLs.
    package static func displayHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::": return "[::1]"
        default: return host.contains(":") ? "[\(host)]" : host
        }
    }
}

/// Why the emulator could not start.
public enum EmulatorError: Error, CustomStringConvertible {
    case missingCertificate(String)
    case controlTokenRequired(String)
    case importFailed(String, String)
    case deliveryLatencyNeedsRealClock
    case portInUse(listener: String, host: String, port: Int, flag: String)

    public var description: String {
        switch self {
        case .missingCertificate(let path):
            return "missing \(path): run `apns-emulator certs` to create the development certificates"
        case .importFailed(let file, let why):
            return "could not import the state snapshot \(file): \(why)"
        case .portInUse(let listener, let host, let port, let flag):
            return "the \(listener) listener cannot bind \(host):\(port): the port is in use (another emulator, or"
                + " another program); choose another with \(flag) PORT, or \(flag) 0 for any free one"
        case .deliveryLatencyNeedsRealClock:
            return "a delivery latency needs the real clock: drop --manual-clock or --delivery-latency (on a manual clock"
                + " pushes reach their devices as they are accepted)"
        case .controlTokenRequired(let host):
            return "the control API would listen on \(host), reachable from the network: pass --control-token TOKEN"
                + " (every control request must then carry 'Authorization: Bearer TOKEN')"
        }
    }
}
