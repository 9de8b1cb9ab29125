/// `apns-id` values: canonical UUIDs, validated as bytes and generated without Foundation's UUID.
public enum APNsID {
    /// 8-4-4-4-12 hex digits with hyphens, either case (Decision: accepted as sent, echoed as sent).
    public static func isCanonical(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if b != UInt8(ascii: "-") { return false }
            } else {
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                     UInt8(ascii: "A")...UInt8(ascii: "F"):
                    continue
                default:
                    return false
                }
            }
        }
        return true
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A random (version 4) UUID in lowercase, as APNs generates when the request carries none.
    public static func generate() -> String {
        var rng = SystemRandomNumberGenerator()
        return generate(using: &rng)
    }

    /// The same, drawing from `rng` (see `APNsIDGenerator` for the hot path).
    public static func generate(using rng: inout some RandomNumberGenerator) -> String {
        var a = rng.next() as UInt64
        var b = rng.next() as UInt64
        a = (a & ~0xF000) | 0x4000              // version 4 in bits 12–15 of the third group
        b = (b & ~(0xC << 60)) | (0x8 << 60)    // variant 10xx
        // Nibbles of a (32 hex digits) then b, hyphens after digits 8, 12, 16 and 20.
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var out = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[out] = UInt8(ascii: "-")
                    out += 1
                }
                let word = digit < 16 ? a : b
                let shift = UInt64(60 - (digit % 16) * 4)
                buffer[out] = hex[Int((word >> shift) & 0xF)]
                out += 1
            }
            return out
        }
    }
}
