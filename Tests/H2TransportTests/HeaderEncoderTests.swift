import Testing

@testable import H2Transport

@Suite struct HeaderEncoderTests {
    /// The word-at-a-time lowercasing agrees with the byte-at-a-time rule for every byte value, at every
    /// length and alignment around a word.
    @Test func lowercasingMatchesTheByteRule() {
        func reference(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
        var rng = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                var out = bytes
                out.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1)!, count: length) }
                #expect(out == bytes.map(reference))
            }
        }
        var name = Array("X-APNs-Emulator-Version".utf8)
        name.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress!, count: $0.count) }
        #expect(String(decoding: name, as: UTF8.self) == "x-apns-emulator-version")
        var edges: [UInt8] = [0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0xC1, 0xDA]
        edges.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress!, count: $0.count) }
        #expect(edges == [0x40, 0x61, 0x7A, 0x5B, 0x60, 0x61, 0x7A, 0xC1, 0xDA])
    }
}
