import APNsProtocol
import Testing

@Suite struct PushTypeTests {
    /// The byte parser the validator uses agrees with the raw values, and is exact (no case folding).
    @Test func headerBytesParseExactlyLikeTheRawValue() {
        let candidates = PushType.allCases.map(\.rawValue) + ["", "Alert", "ALERT", "alert ", "aler", "alerts", "voip\u{0}", "mdmx"]
        for text in candidates {
            var copy = text
            let parsed = copy.withUTF8 { PushType(headerBytes: UnsafeRawBufferPointer($0)) }
            #expect(parsed == PushType(headerValue: text), "\(text)")
        }
    }
}
