import Testing

@testable import VirtualDevices

@Suite("Delivery latency histogram")
struct DeliveryLatencyHistogramTests {
    @Test func bucketsAreCumulativeAndTheSumIsInSeconds() {
        var h = DeliveryLatencyHistogram()
        h.record(micros: 80)
        h.record(micros: 100)
        h.record(micros: 400_000)
        h.record(micros: 20_000_000)
        let lines = h.prometheusLines()
        #expect(lines.contains(#"apns_emulator_delivery_seconds_bucket{le="0.0001"} 2"#), "at or below a bound is in it")
        #expect(lines.contains(#"apns_emulator_delivery_seconds_bucket{le="0.25"} 2"#))
        #expect(lines.contains(#"apns_emulator_delivery_seconds_bucket{le="0.5"} 3"#))
        #expect(lines.contains(#"apns_emulator_delivery_seconds_bucket{le="10"} 3"#))
        #expect(lines.contains(#"apns_emulator_delivery_seconds_bucket{le="+Inf"} 4"#))
        #expect(lines.contains("apns_emulator_delivery_seconds_sum 20.40018"))
        #expect(lines.contains("apns_emulator_delivery_seconds_count 4"))
        #expect(lines.first?.hasPrefix("# HELP apns_emulator_delivery_seconds ") == true)
        #expect(lines.contains("# TYPE apns_emulator_delivery_seconds histogram"))
    }
}
