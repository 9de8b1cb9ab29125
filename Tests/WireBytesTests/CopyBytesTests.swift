import Testing
import WireBytes

@Suite("copyBytes: small copies without memmove")
struct CopyBytesTests {
    /// Every size through the word paths and past them copies exactly `count` bytes: the bytes around the
    /// destination stay untouched, whatever the destination's alignment.
    @Test func copiesExactlyCountBytesAtEverySizeAndAlignment() {
        let source = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...40 {
            for offset in 0..<8 {
                var destination = [UInt8](repeating: 0xEE, count: 64)
                source.withUnsafeBytes { src in
                    destination.withUnsafeMutableBytes { dst in
                        copyBytes(to: dst.baseAddress! + offset, from: src.baseAddress! + 3, count: count)
                    }
                }
                let expected = [UInt8](repeating: 0xEE, count: offset) + source[3..<3 + count]
                    + [UInt8](repeating: 0xEE, count: 64 - offset - count)
                #expect(destination == expected, "count \(count), offset \(offset)")
            }
        }
    }
}
