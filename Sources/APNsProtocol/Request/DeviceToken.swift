import H2Transport

/// Device-token text checks, done over bytes so the hot path builds no String until the token is known good.
public enum DeviceToken {
    /// Apple: "do not hard-code the size". App tokens are 32 bytes, Live Activity tokens longer; anything
    /// from 8 to 255 bytes of hex is accepted as a well-formed token.
    public static let byteRange = 8...255

    /// Hex digit in either case, without a table (a static table costs a lazy-initialisation check per use).
    @inline(__always)
    static func isHexDigit(_ b: UInt8) -> Bool {
        (b &- UInt8(ascii: "0")) < 10 || ((b | 0x20) &- UInt8(ascii: "a")) < 6
    }

    /// Whether `bytes` is an even-length hex string within `byteRange` (either case).
    public static func isWellFormed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count % 2 == 0, byteRange.contains(bytes.count / 2) else { return false }
        for b in bytes where !isHexDigit(b) { return false }
        return true
    }

    /// The same check for text (the control API).
    public static func isWellFormed(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { isWellFormed(UnsafeRawBufferPointer($0)) }
    }

    /// The canonical form of a well-formed token given as text.
    public static func canonical(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { canonical(UnsafeRawBufferPointer($0)) }
    }

    /// The canonical (lowercase) form of a well-formed token.
    public static func canonical(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for i in 0..<bytes.count {
                let b = bytes[i]
                // A–F become a–f; every other byte is kept.
                buffer[i] = (b &- UInt8(ascii: "A")) < 6 ? b | 0x20 : b
            }
            return bytes.count
        }
    }

    /// Whether `text` is the canonical form of the token `bytes` (without building it).
    public static func isCanonical(_ text: String, of bytes: UnsafeRawBufferPointer) -> Bool {
        var text = text
        return text.withUTF8 { t in
            guard t.count == bytes.count else { return false }
            for i in 0..<t.count {
                let b = bytes[i]
                if t[i] != ((b &- UInt8(ascii: "A")) < 6 ? b | 0x20 : b) { return false }
            }
            return true
        }
    }

    /// The lowercase text after `/3/device/` in a request's `:path`, well-formed or not: what faults match on
    /// and the journal files a request under, even one that validation refused early.
    public static func pathToken(in headers: H2HeaderList) -> String? {
        guard let i = headers.firstIndex(of: ":path") else { return nil }
        return pathToken(inPath: headers.value(at: i))
    }

    /// The same for a `:path` value given as text (the journal reads paths back from its own storage).
    public static func pathToken(inPath path: String) -> String? {
        guard path.hasPrefix("/3/device/"), path.utf8.count > 10 else { return nil }
        return String(path.dropFirst(10)).lowercased()
    }
}
