import WireBytes

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

    /// Whether `text` is the canonical form of the well-formed token `bytes`, without building it. Eight
    /// bytes at a time: for hex digits the canonical byte is just `b | 0x20` (digits already have that bit).
    public static func isCanonical(_ text: String, ofWellFormed bytes: UnsafeRawBufferPointer) -> Bool {
        withUTF8Bytes(text) { isCanonical($0, ofWellFormed: bytes) }
    }

    private static func isCanonical(_ t: UnsafeRawBufferPointer, ofWellFormed bytes: UnsafeRawBufferPointer) -> Bool {
        guard t.count == bytes.count else { return false }
        var i = 0
        while i + 8 <= t.count {
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) | 0x2020_2020_2020_2020
            if w != t.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        while i < t.count {
            if t[i] != bytes[i] | 0x20 { return false }
            i += 1
        }
        return true
    }

    /// Whether every byte is a hex digit (either case), eight at a time: the path's token is checked on
    /// every push. A false answer says nothing about which byte; callers look again byte by byte.
    static func allHexDigits(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        /// Per byte (all below 0x80): the high bit set where `lo <= byte <= hi`.
        func inRange(_ w: UInt64, _ lo: UInt8, _ hi: UInt8) -> UInt64 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            return (w &+ ones &* UInt64(0x80 - lo)) & ~(w &+ ones &* UInt64(0x7F - hi)) & high
        }
        var i = 0
        while i + 8 <= bytes.count {
            let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            guard w & high == 0 else { return false }
            let digits = inRange(w, UInt8(ascii: "0"), UInt8(ascii: "9"))
            let letters = inRange(w | 0x2020_2020_2020_2020, UInt8(ascii: "a"), UInt8(ascii: "f"))
            guard digits | letters == high else { return false }
            i += 8
        }
        while i < bytes.count {
            guard isHexDigit(bytes[i]) else { return false }
            i += 1
        }
        return true
    }

    /// The lowercase text after `/3/device/` in a request's `:path`, well-formed or not: what faults match on
    /// and the journal files a request under, even one that validation refused early.
    public static func pathToken(in headers: borrowing HeaderFields) -> String? {
        guard let i = headers.pathIndex else { return nil }
        return pathToken(inPath: headers.value(at: i))
    }

    /// The bytes after `/3/device/` in a `:path` value (empty when nothing follows), or nil when the path does
    /// not start so: the one place the prefix is spelled for byte-level readers (validation, the journal).
    package static func tokenBytes(inPath path: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let prefix: StaticString = "/3/device/"
        let n = prefix.utf8CodeUnitCount
        guard path.count >= n, bytesEqual(UnsafeRawBufferPointer(rebasing: path[..<n]),
                                          UnsafeRawBufferPointer(start: prefix.utf8Start, count: n)) else { return nil }
        return UnsafeRawBufferPointer(rebasing: path[n...])
    }

    /// The same for a `:path` value given as text (the journal reads paths back from its own storage).
    public static func pathToken(inPath path: String) -> String? {
        guard path.hasPrefix("/3/device/"), path.utf8.count > 10 else { return nil }
        return String(path.dropFirst(10)).lowercased()
    }
}
