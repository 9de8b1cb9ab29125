import APNsEmulator

/// Time from the push's request being read to its arrival on the device, counted in Prometheus' cumulative-bucket form for
/// `/metrics` (`apns_emulator_delivery_seconds`), next to the response-time histogram.
struct DeliveryLatencyHistogram: Sendable, Equatable {
    /// Upper bounds in microseconds (reported in seconds), the response-time histogram's; the last bucket is +Inf.
    static let boundsMicros = EmulatorMetrics.latencyBoundsMicros
    /// Per-bucket counts (not cumulative), one more than `boundsMicros` for +Inf.
    private(set) var buckets = [UInt64](repeating: 0, count: boundsMicros.count + 1)
    private(set) var count: UInt64 = 0
    private(set) var sumMicros: UInt64 = 0

    mutating func record(micros: UInt64) {
        var i = 0
        while i < Self.boundsMicros.count, micros > Self.boundsMicros[i] { i += 1 }
        buckets[i] += 1
        count += 1
        sumMicros &+= micros
    }

    mutating func add(_ other: DeliveryLatencyHistogram) {
        for i in buckets.indices { buckets[i] += other.buckets[i] }
        count += other.count
        sumMicros &+= other.sumMicros
    }

    /// The Prometheus text lines, with their `# HELP` and `# TYPE`.
    func prometheusLines() -> [String] {
        let name = "apns_emulator_delivery_seconds"
        var lines = ["# HELP \(name) Time from APNs reading a push to its arrival on the virtual device,"
                        + " delivery latency and queueing included.",
                     "# TYPE \(name) histogram"]
        var cumulative: UInt64 = 0
        for (i, bound) in Self.boundsMicros.enumerated() {
            cumulative += buckets[i]
            lines.append("\(name)_bucket{le=\"\(Self.seconds(bound))\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(count)")
        lines.append("\(name)_sum \(Self.seconds(sumMicros))")
        lines.append("\(name)_count \(count)")
        return lines
    }

    private static func seconds(_ micros: UInt64) -> String {
        let s = Double(micros) / 1_000_000
        return s == s.rounded() ? String(Int64(s)) : String(s)
    }
}
