import APNsEmulator
import APNsProtocol
import EmulatorControl
import Foundation
import Dashboard
import FrontDoors
import VirtualDevices

/// `apns-emulator serve`: starts the production, sandbox and control listeners and runs until SIGINT/SIGTERM.
///
/// Flags map one to one onto `EmulatorConfiguration`, and help defaults are read from `EmulatorConfiguration()`
/// itself, so changing a default in the emulator changes `--help` with it.
public struct ServeCommand: Command {
    /// Help and the accepted flags, read by the runner and `--help`.
    public static let configuration = CommandConfiguration(
        name: "serve",
        abstract: "Start the APNs emulator and run until interrupted.",
        discussion: """
            Listens for HTTP/2 over TLS on the production and sandbox ports, for plain HTTP/1.1 on the control \
            port, and for FCM's and OneSignal's APIs over TLS on the front-door port. Once every listener accepts connections it prints a table of endpoints and a final line starting \
            with 'ready:', then runs until SIGINT or SIGTERM and shuts down gracefully. A second signal stops it at \
            once.

            Registered keys, device tokens and faults are kept in --state-dir across restarts, unless --ephemeral. \
            Bound beyond loopback (--host 0.0.0.0), the control API needs --control-token: the emulator refuses \
            to start without one.

            Example, on free ports, for a test run:
              apns-emulator serve --production-port 0 --sandbox-port 0 --control-port 0 --front-door-port 0 --ready-file ready.json
            """,
        options: Option.all
    )

    /// The emulator settings the flags produced, starting from `EmulatorConfiguration()`'s defaults.
    public private(set) var emulatorConfiguration: EmulatorConfiguration
    /// What `serve` prints besides errors.
    enum LogLevel: String, Sendable { case error, info, debug }
    var logLevel = LogLevel.info
    /// The per-request log's format, when it is on (`--request-log`, or `--log-level debug`).
    var requestLog: RequestLog?
    /// Where each port came from, so `validate()` can blame the argument that caused a clash.
    private var portArguments: [String: ArgumentCursor.Argument] = [:]
    /// Where `--host` came from, so `validate()` can blame it when a control token is missing.
    private var hostArgument: ArgumentCursor.Argument?

    /// The environment variable read for the control token when `--control-token` is absent, so the token need
    /// not appear in `ps` output or a compose file's command line.
    public static let controlTokenVariable = "APNS_EMULATOR_CONTROL_TOKEN"

    /// - Parameter emulatorConfiguration: Settings to serve with, for callers that build them without parsing.
    public init(emulatorConfiguration: EmulatorConfiguration = EmulatorConfiguration()) {
        self.emulatorConfiguration = emulatorConfiguration
    }

    /// Starts from `EmulatorConfiguration()` and overwrites only what was given, so unflagged fields keep the
    /// emulator's own defaults.
    ///
    /// - Parameter arguments: The arguments after `serve`.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        try self.init(parsing: &arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// Parses with an explicit environment, so tests need not set process-wide variables.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `serve`.
    ///   - environment: Where `APNS_EMULATOR_CONTROL_TOKEN` is read from when `--control-token` is absent.
    init(parsing arguments: inout ArgumentCursor, environment: [String: String]) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options)
        var configuration = EmulatorConfiguration()
        let ports = 0...65535
        if let host = try options.string(Option.host) { configuration.host = host }
        if let port = try options.integer(Option.productionPort, in: ports) { configuration.productionPort = port }
        if let port = try options.integer(Option.sandboxPort, in: ports) { configuration.sandboxPort = port }
        if let port = try options.integer(Option.controlPort, in: ports) { configuration.controlPort = port }
        if let port = try options.integer(Option.frontDoorPort, in: ports) { configuration.frontDoorPort = port }
        if options.flag(Option.noFrontDoors) { configuration.frontDoorPort = nil }
        configuration.fcmLegacyShutDown = try options.choice(Option.fcmLegacyAPI, [("open", false), ("shut-down", true)]) ?? false
        if let path = try options.string(Option.readyFile) { configuration.readyFile = path }
        if let directory = try options.string(Option.certificates) { configuration.certificatesDirectory = directory }
        // A cap keeps a typo like 10000 from spawning ten thousand threads.
        if let loops = try options.integer(Option.eventLoops, in: 1...1024) { configuration.eventLoops = loops }
        // The SETTINGS field is 32 bits (RFC 9113 §6.5.1); Int32.max keeps it clear of sign trouble in C below.
        if let streams = try options.integer(Option.maxConcurrentStreams, in: 1...Int(Int32.max)) {
            configuration.maxConcurrentStreams = streams
        }
        if let bytes = try options.integer(Option.maxBodyBytes, in: 1...Int(Int32.max)) {
            configuration.maxRequestBodyBytes = bytes
        }
        if let seconds = try options.seconds(Option.handshakeTimeout, allowingZero: true) {
            configuration.handshakeTimeoutSeconds = seconds
        }
        if let seconds = try options.seconds(Option.prefaceTimeout, allowingZero: true) {
            configuration.prefaceTimeoutSeconds = seconds
        }
        if let n = try options.integer(Option.maxConnections, in: 1...10_000_000) { configuration.maxConnections = n }
        if let seconds = try options.seconds(Option.idleTimeout, allowingZero: true) {
            configuration.idleTimeoutSeconds = seconds
        }
        if let seconds = try options.seconds(Option.shutdownGrace, allowingZero: true) {
            configuration.shutdownGraceSeconds = seconds
        }
        if options.flag(Option.noClientCertificates) { configuration.requestClientCertificates = false }
        if options.flag(Option.transportOnly) { configuration.transportOnly = true }
        if options.flag(Option.noRFC7540Priorities) { configuration.noRFC7540Priorities = true }
        if options.flag(Option.environmentFromListenerOnly) { configuration.environmentFromHostNames = false }
        try Self.applyStateOptions(options, environment: environment, to: &configuration)
        configuration.policy = try Self.policy(from: options)

        self.emulatorConfiguration = configuration
        logLevel = try options.choice(Option.logLevel, [("error", .error), ("info", .info), ("debug", .debug)]) ?? .info
        let format = try options.choice(Option.logFormat, [("text", RequestLog.Format.text), ("json", .json)]) ?? .text
        if options.flag(Option.requestLog) || logLevel == .debug { requestLog = RequestLog(format: format) }
        self.hostArgument = options.argument(for: Option.host)
        for option in [Option.productionPort, Option.sandboxPort, Option.controlPort, Option.frontDoorPort] {
            portArguments[option.name] = options.argument(for: option)
        }
    }

    /// Two listeners on one fixed port would fail at bind time with a vaguer EADDRINUSE; 0 never clashes. A control
    /// API reachable from the network without a token would let anyone reset or fault the emulator, so that is
    /// refused before anything listens.
    public func validate() throws(UsageError) {
        if !NetworkAddress.isLoopback(emulatorConfiguration.host), (emulatorConfiguration.controlToken ?? "").isEmpty {
            throw .invalidCombination(
                "--host \(emulatorConfiguration.host) makes the control API reachable from the network; pass "
                    + "--control-token <token> (or set \(Self.controlTokenVariable)) so control requests must "
                    + "carry it, or bind to 127.0.0.1",
                argument: hostArgument
            )
        }
        if requestLog != nil, !emulatorConfiguration.journalEnabled {
            throw .invalidCombination("the request log reads the journal: drop --no-journal (or --request-log)",
                                      argument: nil)
        }
        if emulatorConfiguration.deliveryLatency != .none, emulatorConfiguration.manualClock {
            throw .invalidCombination(
                "--delivery-latency needs the real clock: drop --manual-clock (on a manual clock pushes reach their "
                    + "devices as they are accepted)",
                argument: nil)
        }
        let listeners: [(option: OptionDeclaration, role: String, port: Int)] = [
            (Option.productionPort, "production", emulatorConfiguration.productionPort),
            (Option.sandboxPort, "sandbox", emulatorConfiguration.sandboxPort),
            (Option.controlPort, "control", emulatorConfiguration.controlPort),
        ] + (emulatorConfiguration.frontDoorPort.map { [(Option.frontDoorPort, "front-door", $0)] } ?? [])
        for first in listeners.indices {
            for second in listeners.indices where second > first {
                let (earlier, later) = (listeners[first], listeners[second])
                guard earlier.port != 0, earlier.port == later.port else { continue }
                // Blame whichever clashing flag the user typed last; a default cannot be pointed at.
                let blamed = [portArguments[earlier.option.name], portArguments[later.option.name]]
                    .compactMap { $0 }.max { $0.index < $1.index }
                throw .invalidCombination(
                    "the \(earlier.role) and \(later.role) listeners would both use port \(later.port); "
                        + "give each its own port, or 0 for a free one",
                    argument: blamed
                )
            }
        }
    }

    /// Start, announce, wait, stop: the banner is printed only once every listener accepts connections, so the
    /// `ready:` line is a promise a CI script can act on.
    ///
    /// The name to print for running this binary again: the path it was started by when that path has a
    /// slash (not found through PATH), otherwise `apns-emulator`.
    static func invokedExecutable(_ argument0: String = CommandLine.arguments.first ?? "") -> String {
        argument0.contains("/") && argument0.hasSuffix("apns-emulator") ? argument0 : "apns-emulator"
    }

    /// - Parameter context: Output for the banner, and the stop signal to wait for.
    public func run(context: CommandContext) async throws -> ExitCode {
        var configuration = emulatorConfiguration
        let share = OpenFileLimit.share(of: OpenFileLimit.raise())
        if configuration.maxConnections == nil { configuration.maxConnections = share.apns }
        configuration.controlConnectionLimit = share.control
        let emulator = try Emulator.withDashboard(configuration: configuration).emulator
        let endpoints = try emulator.start()
        let banner = ServeBanner(
            version: EmulatorVersion.current,
            production: endpoints.production,
            sandbox: endpoints.sandbox,
            control: endpoints.control,
            frontDoors: endpoints.frontDoors,
            caPath: endpoints.ca,
            configuration: emulatorConfiguration,
            executable: Self.invokedExecutable()
        )
        if logLevel != .error { context.output.write(banner.text) }

        let summary = logLevel != .error && requestLog == nil && isatty(STDERR_FILENO) == 1
            ? Self.liveSummary(emulator.services, context: context) : nil
        let log = requestLog?.start(emulator.services.journal, context: context)
        let signal = await context.waitForStopSignal()
        summary?.cancel()
        log?.cancel()
        if summary != nil { context.errorOutput.write("\r\u{1B}[K") }
        guard logLevel != .error else {
            await Self.shutDown(emulator)
            return .success
        }
        context.errorOutput.writeLine(
            "received \(Self.signalName(signal)); shutting down "
                + "(up to \(Option.formatSeconds(emulatorConfiguration.shutdownGraceSeconds))s for in-flight streams)"
        )
        await Self.shutDown(emulator)
        context.errorOutput.writeLine("stopped")
        return .success
    }

    /// `shutdown()` blocks for up to the grace period; on a thread of its own it cannot starve the cooperative
    /// pool (two threads on a two-core runner) of work the shutdown itself may be waiting for.
    private static func shutDown(_ emulator: Emulator) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                emulator.shutdown()
                continuation.resume()
            }
        }
    }

    /// On a terminal, one line redrawn every second: requests, their rate, successes, connections, in-flight
    /// streams and the p99 bucket of the answer time.
    static func liveSummary(_ services: EmulatorServices, context: CommandContext) -> Task<Void, Never> {
        Task {
            var previous: UInt64 = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let m = services.metrics.snapshot()
                context.errorOutput.write("\r\u{1B}[K" + Self.summaryLine(m, previousTotal: &previous))
            }
        }
    }

    /// `12345 requests (99.1% ok)  4321/s  8 connections  100 in flight  p99 ≤ 2.5 ms`.
    static func summaryLine(_ m: EmulatorMetrics.Snapshot, previousTotal: inout UInt64) -> String {
        let total = m.answered
        let ok = m.succeeded
        let rate = total &- previousTotal
        previousTotal = total
        var p99 = "-"
        if m.latencyCount > 0 {
            var seen: UInt64 = 0
            for bucket in m.latencyBuckets {
                seen += bucket.count
                if Double(seen) >= Double(m.latencyCount) * 0.99 {
                    p99 = bucket.boundMicros.map { String(format: "≤ %.1f ms", Double($0) / 1000) } ?? "> 10 s"
                    break
                }
            }
        }
        let share = total > 0 ? String(format: "%.1f%%", Double(ok) / Double(total) * 100) : "-"
        return "\(total) requests (\(share) ok)  \(rate)/s  \(max(0, m.openConnections)) connections  "
            + "\(max(0, m.openStreams)) in flight  p99 \(p99)"
    }

    private static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
