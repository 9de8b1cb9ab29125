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
        // Nibbles of a (32 hex digits) then b, hyphens after digits 8, 12, 16 and 20. Digits are computed,
        // not looked up: a static table costs a lazy-initialisation check and a bounds check per digit.
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
            var o = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: o, as: UInt8.self)
                    o += 1
                }
                let word = digit < 16 ? a : b
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - (digit & 15) * 4)) & 0xF
                out.storeBytes(of: nibble < 10 ? nibble &+ 48 : nibble &+ 87, toByteOffset: o, as: UInt8.self)
                o += 1
            }
            return 36
        }
    }
}
