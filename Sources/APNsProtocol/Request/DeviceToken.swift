/// Device-token text checks, done over bytes so the hot path builds no String until the token is known good.
public enum DeviceToken {
    /// Apple: "do not hard-code the size". App tokens are 32 bytes, Live Activity tokens longer; anything
    /// from 8 to 255 bytes of hex is accepted as a well-formed token.
    public static let byteRange = 8...255

    /// Whether `bytes` is an even-length hex string within `byteRange` (either case).
    public static func isWellFormed(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count % 2 == 0, byteRange.contains(bytes.count / 2) else { return false }
        for b in bytes {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                 UInt8(ascii: "A")...UInt8(ascii: "F"):
                continue
            default:
                return false
            }
        }
        return true
    }

    /// The canonical (lowercase) form of a well-formed token.
    public static func canonical(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            var i = 0
            for b in bytes {
                buffer[i] = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F") ? b | 0x20 : b
                i += 1
            }
            return i
        }
    }
}
