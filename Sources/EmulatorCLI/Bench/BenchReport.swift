import Foundation

/// The result of `apns-emulator bench`. The JSON keys `requests`, `succeeded`, `throughputPerSecond`,
/// `latencyMs` (`p50`, `p90`, `p99`, `p999`, `max`) and `errors` (reason → count) are a contract other
/// tools read; the rest is added beside them.
struct BenchReport: Encodable {
    struct Latency: Encodable {
        var p50: Double
        var p90: Double
        var p99: Double
        var p999: Double
        var max: Double
    }

    var requests: Int
    var succeeded: Int
    var failed: Int
    var throughputPerSecond: Double
    var latencyMs: Latency
    var errors: [String: Int]
    var connections: Int
    var streams: Int
    var targetRate: Double?
    var durationSeconds: Double
    var target: String
    var environment: String
    var auth: String
    /// Connections the server closed before the run ended, and how many were opened in their place.
    var connectionsLost: Int
    var connectionsReopened: Int
    /// Attempts to open a replacement that failed, and why the last one did.
    var reconnectsFailed: Int
    var lastReconnectError: String?
    /// Whether lost connections were replaced (false with --no-reconnect).
    var reconnect: Bool

    init(_ o: LoadGenerator.Outcome, connections: Int, streams: Int, rate: Double?, target: String, environment: String,
         auth: String, reconnect: Bool = true) {
        func ms(_ q: Double) -> Double { Double(o.histogram.value(at: q)) / 1000 }
        requests = o.requests
        succeeded = o.succeeded
        failed = o.requests - o.succeeded
        throughputPerSecond = o.seconds > 0 ? Double(o.requests) / o.seconds : 0
        latencyMs = Latency(p50: ms(0.5), p90: ms(0.9), p99: ms(0.99), p999: ms(0.999),
                            max: Double(o.histogram.maximum) / 1000)
        errors = o.errors
        self.connections = connections
        self.streams = streams
        targetRate = rate
        durationSeconds = o.seconds
        self.target = target
        self.environment = environment
        self.auth = auth
        connectionsLost = o.connectionsLost
        connectionsReopened = o.connectionsReopened
        reconnectsFailed = o.reconnectsFailed
        lastReconnectError = o.lastReconnectError
        self.reconnect = reconnect
    }

    /// The human summary printed at the end.
    var text: String {
        func f(_ v: Double) -> String { String(format: "%.2f", v) }
        var lines = [
            "requests:   \(requests) (\(succeeded) succeeded, \(failed) failed) in \(f(durationSeconds)) s",
            "throughput: \(String(format: "%.0f", throughputPerSecond)) requests/s over \(connections) connection(s) × \(streams) stream(s)"
                + (targetRate.map { " (target \(String(format: "%.0f", $0))/s)" } ?? ""),
            "latency ms: p50 \(f(latencyMs.p50))  p90 \(f(latencyMs.p90))  p99 \(f(latencyMs.p99))  p99.9 \(f(latencyMs.p999))  max \(f(latencyMs.max))",
        ]
        if !errors.isEmpty {
            lines.append("errors:     " + errors.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if connectionsLost > 0 && !reconnect {
            lines.append("closed:     \(connectionsLost) of \(connections) connection(s) closed by the server"
                         + " (GOAWAY or a closed socket) and not reopened"
                         + (connectionsLost == connections ? ": the run ended with the last of them" : ""))
        } else if connectionsLost > 0 || reconnectsFailed > 0 {
            lines.append("closed:     \(connectionsLost) connection(s) closed by the server (GOAWAY or a closed socket),"
                         + " \(connectionsReopened) opened in their place"
                         + (reconnectsFailed > 0
                            ? "; \(reconnectsFailed) attempt(s) to reopen failed, the last: \(lastReconnectError ?? "?")"
                            : ""))
        }
        return lines.joined(separator: "\n")
    }
}
