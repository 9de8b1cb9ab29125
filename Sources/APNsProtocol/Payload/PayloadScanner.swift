/// A validating JSON scanner for push payloads: is the body one JSON object, and what does `aps` hold at
/// its top level. No values are built, so checking a payload costs one pass over its bytes and no
/// allocation (JSONSerialization costs +5 µs and 6 mallocs per request).
///
/// Runs on every push, so it reads through a raw pointer and sees the end of input as a 0 byte (`byte`):
/// no JSON token starts with or continues through 0, so every check that met the end before still fails
/// the same way, without an Optional per byte.
public struct PayloadScanner {
    /// What the scan found.
    public struct Summary: Sendable, Equatable {
        /// The body is exactly one JSON object (whitespace around it allowed).
        public var isObject = false
        /// The top level has an `aps` key whose value is an object.
        public var hasAPS = false
        /// `aps.content-available` is the number 1.
        public var contentAvailable = false
        /// `aps.mutable-content` is the number 1.
        public var mutableContent = false
        /// `aps` has `alert`, `badge` or `sound` (user-visible parts).
        public var hasAlert = false
        public var hasBadge = false
        public var hasSound = false
        /// Keys of `aps` other than `content-available` (for the background-push rule).
        public var otherAPSKeys = 0
    }

    private let p: UnsafePointer<UInt8>
    private let count: Int
    private var i = 0
    private var depth = 0
    private static let maxDepth = 64

    private init(_ p: UnsafePointer<UInt8>, count: Int) {
        self.p = p
        self.count = count
    }

    /// Scans `body`; a malformed body yields `isObject == false`.
    public static func scan(_ body: [UInt8]) -> Summary {
        body.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return Summary() }
            var s = PayloadScanner(base, count: buffer.count)
            var summary = Summary()
            s.skipSpace()
            guard s.byte == UInt8(ascii: "{"), s.object(topLevel: true, summary: &summary) else { return Summary() }
            s.skipSpace()
            guard s.i == buffer.count else { return Summary() }
            summary.isObject = true
            return summary
        }
    }

    /// The byte at `i`, or 0 past the end.
    @inline(__always)
    private var byte: UInt8 { i < count ? p[i] : 0 }

    @inline(__always)
    private mutating func skipSpace() {
        while i < count {
            let b = p[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i += 1
        }
    }

    @inline(__always)
    private mutating func expect(_ c: UInt8) -> Bool {
        guard byte == c else { return false }
        i += 1
        return true
    }

    /// Parses an object at `i`; at the top level and inside `aps` it notes the keys that matter.
    private mutating func object(topLevel: Bool, summary: inout Summary, isAPS: Bool = false) -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth, expect(UInt8(ascii: "{")) else { return false }
        skipSpace()
        if expect(UInt8(ascii: "}")) { return true }
        while true {
            skipSpace()
            guard let keyStart = stringRange() else { return false }
            skipSpace()
            guard expect(UInt8(ascii: ":")) else { return false }
            skipSpace()
            if topLevel && keyEquals(keyStart, "aps") && byte == UInt8(ascii: "{") {
                summary.hasAPS = true
                guard object(topLevel: false, summary: &summary, isAPS: true) else { return false }
            } else if isAPS {
                let valueStart = i
                guard value(summary: &summary) else { return false }
                let isOne = i - valueStart == 1 && p[valueStart] == UInt8(ascii: "1")
                if keyEquals(keyStart, "content-available") {
                    summary.contentAvailable = isOne
                } else {
                    summary.otherAPSKeys += 1
                    if keyEquals(keyStart, "mutable-content") { summary.mutableContent = isOne }
                    if keyEquals(keyStart, "alert") { summary.hasAlert = true }
                    if keyEquals(keyStart, "badge") { summary.hasBadge = true }
                    if keyEquals(keyStart, "sound") { summary.hasSound = true }
                }
            } else {
                guard value(summary: &summary) else { return false }
            }
            skipSpace()
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "}"))
        }
    }

    @inline(__always)
    private func keyEquals(_ range: Range<Int>, _ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        guard range.count == n else { return false }
        let k = key.utf8Start
        for j in 0..<n where p[range.lowerBound + j] != k[j] { return false }
        return true
    }

    private mutating func value(summary: inout Summary) -> Bool {
        switch byte {
        case UInt8(ascii: "{"): return object(topLevel: false, summary: &summary)
        case UInt8(ascii: "["): return array(summary: &summary)
        case UInt8(ascii: "\""): return stringRange() != nil
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    private mutating func array(summary: inout Summary) -> Bool {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth, expect(UInt8(ascii: "[")) else { return false }
        skipSpace()
        if expect(UInt8(ascii: "]")) { return true }
        while true {
            skipSpace()
            guard value(summary: &summary) else { return false }
            skipSpace()
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "]"))
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= count else { return false }
        for k in 0..<n where p[i + k] != word.utf8Start[k] { return false }
        i += n
        return true
    }

    /// A JSON number per RFC 8259's grammar.
    private mutating func number() -> Bool {
        let start = i
        _ = expect(UInt8(ascii: "-"))
        guard isDigit(byte) else { return false }
        if byte == UInt8(ascii: "0") {
            i += 1
        } else {
            while isDigit(byte) { i += 1 }
        }
        if expect(UInt8(ascii: ".")) {
            guard isDigit(byte) else { return false }
            while isDigit(byte) { i += 1 }
        }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            i += 1
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { i += 1 }
            guard isDigit(byte) else { return false }
            while isDigit(byte) { i += 1 }
        }
        return i > start
    }

    @inline(__always)
    private func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

    /// A JSON string at `i`; returns the range of its raw contents (between the quotes).
    private mutating func stringRange() -> Range<Int>? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = i
        while i < count {
            // Most string bytes are plain printable ASCII: skip them eight at a time, then one by one.
            while i + 8 <= count {
                let special = Self.specialBytes(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
                if special != 0 {
                    i += special.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            while i < count {
                let b = p[i]
                if b &- 0x20 >= 0x60 || b == 0x22 || b == 0x5C { break }
                i += 1
            }
            guard i < count else { return nil }
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                let range = start..<i
                i += 1
                return range
            }
            if c < 0x20 { return nil }
            if c == UInt8(ascii: "\\") {
                i += 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 1
                case UInt8(ascii: "u"):
                    guard i + 5 <= count else { return nil }
                    for k in 1...4 where !isHex(p[i + k]) { return nil }
                    i += 5
                default:
                    return nil
                }
                continue
            }
            if c >= 0x80 {
                guard let n = utf8SequenceLength(at: i) else { return nil }
                i += n
                continue
            }
            i += 1
        }
        return nil
    }

    /// A high bit in each byte of `w` that a string scan must stop at: below 0x20, 0x80 and up, '"' or
    /// '\\'. Borrows can also mark bytes above (later than) a marked one, never below, so the lowest
    /// marked byte (`trailingZeroBitCount / 8` on little-endian) is always a real one.
    @inline(__always)
    private static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & high }
        let control = (w &- ones &* 0x20) & ~w & high
        return (w & high) | control | zeroBytes(w ^ (ones &* 0x22)) | zeroBytes(w ^ (ones &* 0x5C))
    }

    private func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    /// Length of a valid UTF-8 multi-byte sequence at `at` (JSON text must be UTF-8).
    private func utf8SequenceLength(at: Int) -> Int? {
        let c = p[at]
        let n: Int
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0...0xEF: n = 3
        case 0xF0...0xF4: n = 4
        default: return nil
        }
        guard at + n <= count else { return nil }
        for k in 1..<n where p[at + k] & 0xC0 != 0x80 { return nil }
        return n
    }
}
