import Foundation

/// SplitMix64: cheap, per connection, no lock.
package struct SplitMix64 {
    private var state = UInt64.random(in: 1...UInt64.max)

    package init() {}

    /// A uniform draw in [0, 1).
    package mutating func nextUniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// A standard normal draw (Box–Muller).
    package mutating func nextNormal() -> Double {
        let u1 = max(nextUniform(), 1e-12), u2 = nextUniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
