import Foundation
import Testing

import WireBytes

/// Bytes as hex digits and back, as tokens and keys are written.
@Suite("Hex")
struct HexTests {
    @Test func everyByteIsWrittenAsTwoLowercaseHexDigitsAndReadBackInEitherCase() {
        let all = (0...255).map { UInt8($0) }
        let text = Hex.lowercase(all)
        #expect(text == all.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.decode(text) == all && Hex.decode(text.uppercased()) == all)
        #expect(Hex.lowercase([]).isEmpty && Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil && Hex.decode("zz") == nil)
    }
}
