import APNsEmulator
import Foundation
import H2Transport

/// `/metrics` (Prometheus text) and `/_emulator/stats` (JSON): what a sender did to the emulator.
extension ControlAPI {
    /// `GET /metrics` → Prometheus text exposition format 0.0.4.
    func metrics(_ request: ControlRequest) throws -> HTTP1Response {
        let m = services.metrics.snapshot()
        var out: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            out.append("# HELP \(name) \(help)")
            out.append("# TYPE \(name) \(type)")
        }
        family("apns_emulator_requests_total", "counter", "APNs requests answered, by HTTP status and APNs reason.")
        for (key, value) in m.responses.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            out.append(#"apns_emulator_requests_total{status="\#(parts[0])",reason="\#(parts.count > 1 ? parts[1] : "")"} \#(value)"#)
        }
        family("apns_emulator_requests_by_type_total", "counter", "APNs requests by push type and environment.")
        for (key, value) in m.byPushTypeAndEnvironment.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ").map(String.init)
            out.append(#"apns_emulator_requests_by_type_total{push_type="\#(parts[0])",environment="\#(parts[1])"} \#(value)"#)
        }
        family("apns_emulator_response_seconds", "histogram", "Time from reading the request to its answer, shaping latency included.")
        var cumulative: UInt64 = 0
        for bucket in m.latencyBuckets {
            cumulative += bucket.count
            let le = bucket.boundMicros.map { Self.seconds($0) } ?? "+Inf"
            out.append(#"apns_emulator_response_seconds_bucket{le="\#(le)"} \#(cumulative)"#)
        }
        out.append("apns_emulator_response_seconds_sum \(Self.seconds(m.latencySumMicros))")
        out.append("apns_emulator_response_seconds_count \(m.latencyCount)")
        family("apns_emulator_open_connections", "gauge", "APNs connections open now.")
        out.append("apns_emulator_open_connections \(max(0, m.openConnections))")
        family("apns_emulator_connections_total", "counter", "APNs connections accepted.")
        out.append("apns_emulator_connections_total \(m.connectionsTotal)")
        let transport = transportCounters()
        family("apns_emulator_connections_refused_total", "counter", "APNs connections closed on accept at --max-connections.")
        out.append("apns_emulator_connections_refused_total \(transport.connectionsRefused)")
        family("apns_emulator_preface_timeouts_total", "counter", "APNs connections closed for not sending the HTTP/2 preface in time.")
        out.append("apns_emulator_preface_timeouts_total \(transport.prefaceTimeouts)")
        family("apns_emulator_header_lists_refused_total", "counter",
               "Streams reset because their header list passed the advertised SETTINGS_MAX_HEADER_LIST_SIZE.")
        out.append("apns_emulator_header_lists_refused_total \(transport.headerListsRefused)")
        family("apns_emulator_open_streams", "gauge", "Requests in flight now.")
        out.append("apns_emulator_open_streams \(max(0, m.openStreams))")
        family("apns_emulator_stream_concurrency_high_water", "gauge", "Most requests in flight at once on one connection.")
        out.append("apns_emulator_stream_concurrency_high_water \(m.streamsPerConnectionHighWater)")
        family("apns_emulator_token_refreshes_total", "counter", "New provider tokens accepted on connections.")
        out.append("apns_emulator_token_refreshes_total \(m.tokenRefreshes)")
        let cache = services.verifier.hitsAndMisses
        family("apns_emulator_jwt_cache_total", "counter", "Provider-token verdict cache lookups, by result.")
        out.append(#"apns_emulator_jwt_cache_total{result="hit"} \#(cache.hits)"#)
        out.append(#"apns_emulator_jwt_cache_total{result="miss"} \#(cache.misses)"#)
        family("apns_emulator_journal_entries", "gauge", "Requests kept in the journal.")
        out.append("apns_emulator_journal_entries \(services.journal.count())")
        for ext in extensions { out += ext.prometheusLines() }
        out += clusterPrometheusLines()
        family("apns_emulator_build_info", "gauge", "The emulator's version (always 1).")
        out.append(#"apns_emulator_build_info{version="\#(EmulatorVersion.current)"} 1"#)
        out += ProcessMetrics.lines()
        return HTTP1Response(status: 200, headers: [
            H2Header("content-type", "text/plain; version=0.0.4; charset=utf-8"),
            H2Header(EmulatorVersion.headerName, EmulatorVersion.current),
        ], body: Array((out.joined(separator: "\n") + "\n").utf8))
    }

    static func seconds(_ micros: UInt64) -> String {
        let s = Double(micros) / 1_000_000
        return s == s.rounded() ? String(Int64(s)) : String(s)
    }

    /// `GET /_emulator/stats` → per-connection rates, concurrency high-water marks and token refreshes.
    func stats(_ request: ControlRequest) throws -> HTTP1Response {
        let m = services.metrics.snapshot()
        let now = services.clock.now()
        let (open, closed) = services.connectionStats.all()
        let ok = m.succeeded
        let total = m.answered
        let body: [String: Any] = [
            "totals": [
                "requests": total, "succeeded": ok, "failed": total - ok,
                "openConnections": max(0, m.openConnections), "connectionsTotal": m.connectionsTotal,
                "openStreams": max(0, m.openStreams), "concurrencyHighWater": m.streamsPerConnectionHighWater,
                "tokenRefreshes": m.tokenRefreshes,
                "responses": m.responses,
            ] as [String: Any],
            "connections": open.map { $0.view(now: now) },
            "closedConnections": closed.map { $0.view(now: now) },
            "shaping": (try? JSONSerialization.jsonObject(with: JSONEncoder().encode(services.shaping.current))) ?? [:],
        ]
        return ControlAPIResponse.bytes(Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
    }

    /// `GET /_emulator/shaping` → the live settings.
    func getShaping(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json(services.shaping.current)
    }

    /// `PUT /_emulator/shaping` → replaces the settings given (others keep their value); read whole first.
    func updateShaping(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        var s = services.shaping.current
        let latency = body.object("latency")
        let latencyType = latency?.string("type", required: true)
        let ms = latency?.double("ms"), minMs = latency?.double("minMs"), maxMs = latency?.double("maxMs")
        let medianMs = latency?.double("medianMs"), p99Ms = latency?.double("p99Ms")
        let streams = body.int64("maxConcurrentStreams")
        let tokenLimit = body.int64("tokenRateLimit"), tokenWindow = body.int64("tokenRateWindowMs")
        let connectionLimit = body.int64("connectionRateLimit")
        let goAwayRequests = body.int64("goAwayAfterRequests")
        let goAwaySeconds = body.double("goAwayAfterSeconds")
        let share = body.double("brownoutShare"), status = body.int64("brownoutStatus")
        try body.finish()
        func range(_ v: Double?, _ name: String, _ r: ClosedRange<Double>) throws(ControlAPIError) {
            if let v, !r.contains(v) {
                throw ControlAPIError.invalid(name, mustBe: "a number from \(r.lowerBound) to \(r.upperBound)", got: "\(v)")
            }
        }
        if let latencyType {
            let limit = 600_000.0
            switch latencyType {
            case "none": s.latency = .none
            case "fixed":
                guard let ms else { throw ControlAPIError.missing("latency.ms", "milliseconds") }
                try range(ms, "latency.ms", 0...limit)
                s.latency = .fixed(ms: ms)
            case "uniform":
                guard let minMs, let maxMs else { throw ControlAPIError.missing("latency.minMs", "minMs and maxMs") }
                try range(minMs, "latency.minMs", 0...limit)
                try range(maxMs, "latency.maxMs", minMs...limit)
                s.latency = .uniform(minMs: minMs, maxMs: maxMs)
            case "logNormal":
                guard let medianMs, let p99Ms else { throw ControlAPIError.missing("latency.medianMs", "medianMs and p99Ms") }
                try range(medianMs, "latency.medianMs", 0.001...limit)
                try range(p99Ms, "latency.p99Ms", medianMs...limit)
                s.latency = .logNormal(medianMs: medianMs, p99Ms: p99Ms)
            default:
                throw ControlAPIError.invalid("latency.type", mustBe: #"one of "none", "fixed", "uniform", "logNormal""#,
                                              got: latencyType)
            }
        }
        if let streams {
            guard (1...100_000).contains(streams) else {
                throw ControlAPIError.invalid("maxConcurrentStreams", mustBe: "an integer from 1 to 100000", got: "\(streams)")
            }
            s.maxConcurrentStreams = Int(streams)
        }
        for (value, name) in [(tokenLimit, "tokenRateLimit"), (connectionLimit, "connectionRateLimit"),
                              (goAwayRequests, "goAwayAfterRequests")] {
            if let value, !(0...10_000_000).contains(value) {
                throw ControlAPIError.invalid(name, mustBe: "an integer from 0 (off) to 10000000", got: "\(value)")
            }
        }
        if let tokenWindow, !(1...3_600_000).contains(tokenWindow) {
            throw ControlAPIError.invalid("tokenRateWindowMs", mustBe: "milliseconds from 1 to 3600000", got: "\(tokenWindow)")
        }
        try range(goAwaySeconds, "goAwayAfterSeconds", 0...86_400)
        try range(share, "brownoutShare", 0...1)
        if let status, status != 500 && status != 503 {
            throw ControlAPIError.invalid("brownoutStatus", mustBe: "500 or 503", got: "\(status)")
        }
        if let tokenLimit { s.tokenRateLimit = Int(tokenLimit) }
        if let tokenWindow { s.tokenRateWindowMs = tokenWindow }
        if let connectionLimit { s.connectionRateLimit = Int(connectionLimit) }
        if let goAwayRequests { s.goAwayAfterRequests = Int(goAwayRequests) }
        if let goAwaySeconds { s.goAwayAfterSeconds = goAwaySeconds }
        if let share { s.brownoutShare = share }
        if let status { s.brownoutStatus = Int(status) }
        try services.updateShaping(s)
        return try ControlAPIResponse.json(s)
    }
}
