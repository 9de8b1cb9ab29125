import Testing
import WireBytes

@Suite("isASCII: eight bytes at a time")
struct IsASCIITests {
    @Test func asciiIsToldFromAnyByteAtOrAbove0x80AtEveryPosition() {
        for count in 0..<20 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: count)
            #expect(bytes.withUnsafeBytes(isASCII))
            for i in 0..<count {
                bytes[i] = 0x80
                #expect(!bytes.withUnsafeBytes(isASCII), "byte \(i) of \(count)")
                bytes[i] = 0x7F
            }
        }
    }
}
