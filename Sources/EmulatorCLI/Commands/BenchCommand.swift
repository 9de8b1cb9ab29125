import APNsEmulator
import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apns-emulator bench`: a load generator for the emulator (or any APNs-compatible endpoint with our control
/// API), on our HTTP/2 client: it registers its own key and device tokens through the control API, then sends
/// valid pushes over N connections × M streams and reports throughput, latency percentiles and errors.
public struct BenchCommand: Command {
    enum Option {
        static let target = OptionDeclaration.value("target", valueName: "url",
            help: "APNs listener to load, https://HOST:PORT (default: the production URL the control API names).")
        static let control = OptionDeclaration.value("control", valueName: "url",
            help: "The emulator's control API, for the key and tokens.", default: "http://127.0.0.1:8765")
        static let connections = OptionDeclaration.value("connections", valueName: "n", help: "HTTP/2 connections.",
                                                         default: "4")
        static let streams = OptionDeclaration.value("streams", valueName: "n",
            help: "Requests in flight per connection.", default: "100")
        static let count = OptionDeclaration.value("count", valueName: "n", help: "Stop after this many requests.")
        static let duration = OptionDeclaration.value("duration", valueName: "seconds",
            help: "Stop after this long (with --rate: send the requests due within it, rate × seconds of them).")
        static let rate = OptionDeclaration.value("rate", valueName: "per-second",
            help: "Open loop at this many requests per second (latency counted from each request's intended time); "
                + "default: as fast as the streams allow.")
        static let tokens = OptionDeclaration.value("tokens", valueName: "n",
            help: "Device tokens to register and spread the pushes over.", default: "100")
        static let token = OptionDeclaration.value("token", valueName: "hex",
            help: "Push to this device token (repeat for several) instead of registering --tokens new ones, e.g. a "
                + "virtual device's, so every push is also delivered.")
        static let topic = OptionDeclaration.value("topic", valueName: "bundle-id", help: "The app.",
                                                   default: "com.example.app")
        static let payload = OptionDeclaration.value("payload", valueName: "json|@file",
            help: "Push payload: JSON text, @FILE, or @- for standard input.", default: #"{"aps":{"alert":"bench"}}"#)
        static let certificate = OptionDeclaration.value("cert", valueName: "pem",
            help: "Use certificate auth with this client certificate (with --key) instead of a provider token.")
        static let key = OptionDeclaration.value("key", valueName: "pem", help: "The client certificate's key.")
        static let ca = OptionDeclaration.value("ca", valueName: "pem",
            help: "CA to trust (default: the one the control API names).")
        static let controlToken = OptionDeclaration.value("control-token", valueName: "token",
            help: "Bearer token for the control API.")
        static let json = OptionDeclaration.value("json", valueName: "file", help: "Write the report as JSON there.")
        static let registeredTokens = OptionDeclaration.flag("registered-tokens",
            help: "Push to the app tokens the emulator already holds for --topic in the target's environment (those "
                + "of virtual devices, say: every push is then delivered) instead of registering new ones.")
        static let noReconnect = OptionDeclaration.flag("no-reconnect",
            help: "Do not replace connections the server closes (GOAWAY, a closed socket): their share of the run "
                + "stops, and the run ends early when none is left.")
        static let maxErrorRate = OptionDeclaration.value("max-error-rate", valueName: "share",
            help: "Exit 1 when more than this share (0–1) of the requests failed: a gate for a CI job.")
        static let minThroughput = OptionDeclaration.value("min-throughput", valueName: "per-second",
            help: "Exit 1 when fewer requests than this succeeded per second.")
        static let all = [target, control, connections, streams, count, duration, rate, tokens, token, registeredTokens,
                          topic, payload, certificate, key, ca, controlToken, json, noReconnect, maxErrorRate,
                          minThroughput]
    }

    public static let configuration = CommandConfiguration(
        name: "bench",
        abstract: "Load an APNs listener with valid pushes and report throughput and latency.",
        discussion: """
            Registers a generated signing key and --tokens device tokens through the control API, opens \
            --connections HTTP/2 connections and keeps --streams requests in flight on each, until --count \
            requests or --duration seconds. With --rate it sends on a fixed schedule and counts latency from \
            each request's intended send time, so a stall is not hidden. The JSON report has at least \
            requests, succeeded, throughputPerSecond, latencyMs {p50, p90, p99, p999, max} and errors.

            Example:
              apns-emulator bench --target https://127.0.0.1:2197 --control http://127.0.0.1:8765 \\
                --connections 8 --streams 100 --count 200000 --json bench.json
            """,
        options: Option.all
    )

    var target: String?
    var control: String
    var connections: Int
    var streams: Int
    var count: Int?
    var duration: Double?
    var rate: Double?
    var tokens: Int
    var givenTokens: [String]
    var topic: String
    var payload: PayloadArgument
    var certificate: String?
    var key: String?
    var ca: String?
    var controlToken: String?
    var json: String?
    /// Push to the registry's tokens for the topic rather than registering --tokens new ones.
    var useRegisteredTokens: Bool
    /// Replace connections the server closes (off with --no-reconnect).
    var reconnects: Bool
    /// Gates: the run fails beyond them.
    var maxErrorRate: Double?
    var minThroughput: Double?

    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let o = try arguments.parseOptions(Self.configuration.options)
        target = try o.value(Option.target, expected: "an https:// URL") { $0.hasPrefix("https://") ? $0 : nil }
        control = try o.value(Option.control, expected: "an http:// URL") { $0.hasPrefix("http") ? $0 : nil }
            ?? "http://127.0.0.1:8765"
        connections = try o.integer(Option.connections, in: 1...10_000) ?? 4
        streams = try o.integer(Option.streams, in: 1...10_000) ?? 100
        count = try o.integer(Option.count, in: 1...Int(Int32.max))
        duration = try o.seconds(Option.duration, allowingZero: false)
        rate = try o.value(Option.rate, expected: "a number of requests per second above 0") { Double($0).flatMap { $0 > 0 ? $0 : nil } }
        tokens = try o.integer(Option.tokens, in: 1...100_000) ?? 100
        givenTokens = o.all(Option.token).compactMap(\.value)
        topic = try o.string(Option.topic) ?? "com.example.app"
        payload = try PayloadArgument.parse(o, Option.payload) ?? .text(#"{"aps":{"alert":"bench"}}"#)
        certificate = try o.string(Option.certificate)
        key = try o.string(Option.key)
        ca = try o.string(Option.ca)
        controlToken = try o.string(Option.controlToken)
        json = try o.string(Option.json)
        useRegisteredTokens = o.flag(Option.registeredTokens)
        reconnects = !o.flag(Option.noReconnect)
        maxErrorRate = try o.value(Option.maxErrorRate, expected: "a share from 0 to 1, e.g. 0.01") {
            Double($0).flatMap { (0...1).contains($0) ? $0 : nil }
        }
        minThroughput = try o.value(Option.minThroughput, expected: "a number of requests per second above 0") {
            Double($0).flatMap { $0 > 0 ? $0 : nil }
        }
        if useRegisteredTokens, !givenTokens.isEmpty {
            throw .invalidCombination("--registered-tokens and --token choose the tokens two ways: keep one",
                                      argument: o.argument(for: Option.token))
        }
        guard count != nil || duration != nil else {
            throw .missingOption(Option.count)
        }
        if (certificate == nil) != (key == nil) {
            throw .invalidCombination("--cert and --key go together", argument: o.argument(for: Option.certificate)
                                      ?? o.argument(for: Option.key))
        }
    }

    public func run(context: CommandContext) async throws -> ExitCode {
        let setup = try await prepare()
        var plan = LoadGenerator.Plan(streamsPerConnection: streams, count: count,
                                      duration: duration.map { .nanoseconds(Int64(($0 * 1e9).rounded())) }, rate: rate)
        if reconnects { plan.reconnect = LoadGenerator.Reconnect(connect: setup.connect) }
        let generator = LoadGenerator(connections: setup.connections, requests: setup.requests, plan: plan)
        let progress = isatty(STDERR_FILENO) == 1
            ? Self.startProgress(generator, count: count, duration: duration, context: context) : nil
        let outcome = await generator.run()
        progress?.cancel()
        if let progress {
            await progress.value
            context.errorOutput.write("\r\u{1B}[K")
        }
        generator.closeConnections()
        setup.client.shutdown()
        let report = BenchReport(outcome, connections: connections, streams: streams, rate: rate, target: setup.target,
                                 environment: setup.environment.rawValue, auth: certificate == nil ? "token" : "certificate",
                                 reconnect: reconnects)
        context.output.writeLine(report.text)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json), options: .atomic)
        }
        let missed = Self.gatesMissed(report, maxErrorRate: maxErrorRate, minThroughput: minThroughput)
        for line in missed { context.errorOutput.write("bench: \(line)\n") }
        return report.succeeded > 0 && missed.isEmpty ? .success : .failure
    }

    /// What the run missed of its gates, one sentence each.
    static func gatesMissed(_ report: BenchReport, maxErrorRate: Double?, minThroughput: Double?) -> [String] {
        var missed: [String] = []
        if let maxErrorRate, report.requests > 0 {
            let share = Double(report.failed) / Double(report.requests)
            if share > maxErrorRate {
                missed.append("\(report.failed) of \(report.requests) requests failed (\(Self.percent(share))), above"
                              + " --max-error-rate \(maxErrorRate) (\(Self.percent(maxErrorRate)))")
            }
        }
        let succeededPerSecond = report.durationSeconds > 0 ? Double(report.succeeded) / report.durationSeconds : 0
        if let minThroughput, succeededPerSecond < minThroughput {
            missed.append("\(Int(succeededPerSecond.rounded())) requests/s succeeded, below --min-throughput"
                          + " \(Int(minThroughput.rounded()))")
        }
        return missed
    }

    private static func percent(_ share: Double) -> String {
        String(format: "%.2f%%", share * 100)
    }

    // MARK: Setup

    struct Setup {
        var client: H2Client
        var connections: [H2ClientConnection]
        /// Opens one more connection like them (in place of one the server closes).
        var connect: @Sendable () async throws -> H2ClientConnection
        var requests: [H2Request]
        var target: String
        var environment: APNsEnvironment
    }

    private func prepare() async throws -> Setup {
        // Files first, then the TLS client built from them: a wrong path or a bad certificate ends the run with
        // its name before anything is registered on the emulator.
        let body = try payload.bytes()
        for (path, role) in [(certificate, "client certificate"), (key, "client key"), (ca, "CA file")] {
            if let path { try CommandFailure.requireReadable(path, as: role) }
        }
        let endpoints = try await controlJSON("GET", "/_emulator/endpoints")
        let client = try makeClient(reportedCA: endpoints["ca"] as? String)
        var ready = false
        defer { if !ready { client.shutdown() } }
        let production = endpoints["production"] as? String ?? ""
        let sandbox = endpoints["sandbox"] as? String ?? ""
        let targetURL = target ?? production
        guard let components = URLComponents(string: targetURL), let host = components.host, let port = components.port else {
            throw CommandFailure("--target \(targetURL) is not https://HOST:PORT")
        }
        // The listener is told by its port, however the host is spelled (127.0.0.1, localhost, a trailing slash):
        // the tokens registered for the run must be of the environment the pushes go to.
        let environment: APNsEnvironment = URLComponents(string: sandbox)?.port == port ? .sandbox : .production
        // Looked up before anything is registered: none to push to ends the run with nothing changed.
        var deviceTokens = useRegisteredTokens ? try await registeredTokens(environment: environment) : givenTokens
        var authorization: String?
        if certificate == nil {
            let keyId = String((0..<10).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement()! })
            let created = try await controlJSON("POST", "/_emulator/keys",
                                                ["teamId": "BENCHTEAM1", "keyId": keyId, "kind": "team"])
            guard let pem = created["privateKeyPem"] as? String else { throw CommandFailure("the emulator returned no key") }
            let clock = try await controlJSON("GET", "/_emulator/clock")
            let now = (clock["now"] as? NSNumber)?.int64Value ?? Int64(Date().timeIntervalSince1970 * 1000)
            authorization = "bearer " + (try ProviderTokenSigner.makeToken(
                privateKey: try PrivateKey(pem: pem), keyId: keyId, teamId: "BENCHTEAM1", issuedAt: now / 1000))
        }
        let serverName = environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com"
        var requests: [H2Request] = []
        if deviceTokens.isEmpty {
            for _ in 0..<tokens {
                let record = try await controlJSON("POST", "/_emulator/tokens", ["bundleId": topic, "environment": environment.rawValue])
                guard let token = record["token"] as? String else { throw CommandFailure("the emulator issued no token") }
                deviceTokens.append(token)
            }
        }
        // Replicas sharing a store (the key and tokens were registered through one of them): every replica has
        // them before the first push. A single emulator answers at once.
        _ = try await controlJSON("POST", "/_emulator/cluster/sync", tolerating: [404])
        for token in deviceTokens {
            var headers = [H2Header("apns-topic", topic), H2Header("apns-push-type", "alert")]
            if let authorization { headers.insert(H2Header("authorization", authorization), at: 0) }
            requests.append(H2Request(method: "POST", authority: "\(serverName):\(port)", path: "/3/device/\(token)",
                                      headers: headers, body: body))
        }
        let connect: @Sendable () async throws -> H2ClientConnection = {
            try await client.connect(host: host, port: port, serverName: serverName)
        }
        var opened: [H2ClientConnection] = []
        do {
            for _ in 0..<connections { opened.append(try await connect()) }
        } catch {
            for c in opened { c.close() }
            throw CommandFailure("could not connect to \(targetURL): \(error)")
        }
        ready = true
        return Setup(client: client, connections: opened, connect: connect, requests: requests, target: targetURL, environment: environment)
    }

    /// The app tokens the registry holds for --topic in `environment` that still take pushes (not unregistered
    /// or expired): none is an error, since the run would push nothing or push only to refusals.
    private func registeredTokens(environment: APNsEnvironment) async throws -> [String] {
        let query = "bundleId=\(topic.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? topic)"
            + "&environment=\(environment.rawValue)"
        let listed = try await controlJSON("GET", "/_emulator/tokens?" + query)
        let records = listed["tokens"] as? [[String: Any]] ?? []
        func absent(_ value: Any?) -> Bool { value == nil || value is NSNull }
        let usable = records.filter {
            ($0["kind"] as? String ?? "app") == "app" && absent($0["unregisteredAt"]) && absent($0["expiredAt"])
        }.compactMap { $0["token"] as? String }
        guard !usable.isEmpty else {
            throw CommandFailure("the emulator holds no app tokens for \(topic) in \(environment.rawValue) that take pushes "
                                 + "(\(records.count) listed); register some (a virtual device, POST /_emulator/tokens) or "
                                 + "drop --registered-tokens")
        }
        return usable
    }

    /// The TLS client, trusting --ca or else the CA file the control API names. That path is the emulator's:
    /// from a container it may not exist here, which the message says.
    private func makeClient(reportedCA: String?) throws -> H2Client {
        let trust = ca ?? reportedCA
        if ca == nil, let trust {
            try CommandFailure.requireReadable(trust, as: "CA file",
                                               hint: " (the path the control API reported; pass --ca)")
        }
        do {
            let tls = TLSClientConfiguration(trustRootsFile: trust, certificateChainFile: certificate, privateKeyFile: key)
            return try H2Client(tls: tls, eventLoops: min(connections, max(1, ProcessInfo.processInfo.activeProcessorCount)))
        } catch {
            let files = [trust, certificate, key].compactMap { $0 }.joined(separator: ", ")
            throw CommandFailure("cannot set up TLS with \(files): \(error)")
        }
    }

    /// - Parameter tolerating: statuses taken as an empty answer (an older emulator without the route).
    private func controlJSON(_ method: String, _ path: String, _ body: [String: Any]? = nil,
                             tolerating: Set<Int> = []) async throws -> [String: Any] {
        guard let url = URL(string: control + path) else { throw CommandFailure("bad --control URL \(control)") }
        let status: Int, object: [String: Any]
        do {
            (status, object) = try await ControlAPICall.send(method, url, body: body, token: controlToken, timeout: 30)
        } catch {
            throw CommandFailure("the control API at \(control) did not answer \(method) \(path): \(error.localizedDescription)")
        }
        if tolerating.contains(status) { return [:] }
        guard (200..<300).contains(status) else {
            throw CommandFailure("\(method) \(path) answered \(status): \(object["error"] as? String ?? "")")
        }
        return object
    }

    /// Redraws `[####    ] 45%  123456 requests  98765/s` every quarter second on stderr.
    private static func startProgress(_ g: LoadGenerator, count: Int?, duration: Double?,
                                      context: CommandContext) -> Task<Void, Never> {
        Task {
            let clock = ContinuousClock()
            let start = clock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                // A cancelled sleep returns early: write nothing after the run's end clears the line.
                if Task.isCancelled { break }
                let elapsed = start.duration(to: clock.now) / .seconds(1)
                let line = progressLine(done: g.completedCount.load(ordering: .relaxed), elapsed: elapsed, count: count,
                                        duration: duration)
                context.errorOutput.write("\r" + line)
            }
        }
    }

    /// The progress line: requests answered and their rate, behind a bar of how far the run is — through its
    /// --count, else through its --duration (whichever ends it first, when both are given).
    static func progressLine(done: Int, elapsed: Double, count: Int?, duration: Double?) -> String {
        let rate = Double(done) / max(0.001, elapsed)
        let line = "\(done) requests  \(Int(rate))/s"
        var fraction: Double?
        if let count { fraction = Double(done) / Double(max(1, count)) }
        if let duration, duration > 0 { fraction = max(fraction ?? 0, elapsed / duration) }
        guard let fraction else { return line }
        let shown = min(1, max(0, fraction))
        // The epsilon keeps 29/100 at 29% (0.29 * 100 is 28.999…).
        let filled = Int(shown * 30 + 1e-9), percent = Int(shown * 100 + 1e-9)
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled) + "] "
            + "\(percent)%  " + line
    }
}
