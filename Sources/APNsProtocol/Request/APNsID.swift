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
        // 8-4-4-4-12: a's 16 hex digits then b's, hyphens after digits 8, 12, 16 and 20.
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
            let high = hex8(UInt32(truncatingIfNeeded: a >> 32)), mid = hex8(UInt32(truncatingIfNeeded: a))
            let next = hex8(UInt32(truncatingIfNeeded: b >> 32)), low = hex8(UInt32(truncatingIfNeeded: b))
            out.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            out.storeBytes(of: UInt32(truncatingIfNeeded: mid), toByteOffset: 9, as: UInt32.self)
            out.storeBytes(of: UInt32(truncatingIfNeeded: mid >> 32), toByteOffset: 14, as: UInt32.self)
            out.storeBytes(of: UInt32(truncatingIfNeeded: next), toByteOffset: 19, as: UInt32.self)
            out.storeBytes(of: UInt32(truncatingIfNeeded: next >> 32), toByteOffset: 24, as: UInt32.self)
            out.storeBytes(of: low, toByteOffset: 28, as: UInt64.self)
            let hyphen = UInt8(ascii: "-")
            out.storeBytes(of: hyphen, toByteOffset: 8, as: UInt8.self)
            out.storeBytes(of: hyphen, toByteOffset: 13, as: UInt8.self)
            out.storeBytes(of: hyphen, toByteOffset: 18, as: UInt8.self)
            out.storeBytes(of: hyphen, toByteOffset: 23, as: UInt8.self)
            return 36
        }
    }

    /// The eight lowercase hex digits of `v`, most significant first, as a word whose bytes in memory are
    /// those digits: all eight at once instead of a loop with a lookup per digit. Little-endian, like
    /// every platform this builds for (the caller splits words into their first and last four bytes).
    @inline(__always)
    static func hex8(_ v: UInt32) -> UInt64 {
        var x = UInt64(v)
        // One nibble per byte, least significant nibble in the lowest byte...
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // ...then the most significant first, as text is read.
        #if _endian(big)
        #error("APNsID.hex8 assumes a little-endian platform")
        #endif
        x = x.byteSwapped
        // '0' + n, plus ('a' - '0' - 10) where n >= 10 (n + 6 carries into bit 4 exactly then).
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }
}
