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
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var i = 0
            func put(_ value: UInt64, _ nibbles: Int) {
                var n = nibbles
                while n > 0 {
                    n -= 1
                    buffer[i] = hex[Int((value >> UInt64(n * 4)) & 0xF)]
                    i += 1
                }
            }
            put(a >> 32, 8); buffer[i] = UInt8(ascii: "-"); i += 1
            put(a >> 16, 4); buffer[i] = UInt8(ascii: "-"); i += 1
            put(a, 4); buffer[i] = UInt8(ascii: "-"); i += 1
            put(b >> 48, 4); buffer[i] = UInt8(ascii: "-"); i += 1
            put(b, 12)
            return 36
        }
    }
}
