/// A validating JSON scanner for push payloads: is the body one JSON object, and what does `aps` hold at
/// its top level. No values are built, so checking a payload costs one pass over its bytes and no
/// allocation (JSONSerialization costs +5 µs and 6 mallocs per request; transport-notes).
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

    private let bytes: UnsafeRawBufferPointer
    private var i = 0
    private var depth = 0
    private static let maxDepth = 64

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Scans `body`; a malformed body yields `isObject == false`.
    public static func scan(_ body: [UInt8]) -> Summary {
        body.withUnsafeBytes { raw in
            var s = PayloadScanner(raw)
            var summary = Summary()
            s.skipSpace()
            guard s.peek() == UInt8(ascii: "{"), s.object(topLevel: true, summary: &summary) else { return Summary() }
            s.skipSpace()
            guard s.i == raw.count else { return Summary() }
            summary.isObject = true
            return summary
        }
    }

    private func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func expect(_ c: UInt8) -> Bool {
        guard peek() == c else { return false }
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
            if topLevel && keyEquals(keyStart, "aps") && peek() == UInt8(ascii: "{") {
                summary.hasAPS = true
                guard object(topLevel: false, summary: &summary, isAPS: true) else { return false }
            } else if isAPS {
                let valueStart = i
                guard value(summary: &summary) else { return false }
                let isOne = i - valueStart == 1 && bytes[valueStart] == UInt8(ascii: "1")
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

    private func keyEquals(_ range: Range<Int>, _ key: StaticString) -> Bool {
        guard range.count == key.utf8CodeUnitCount else { return false }
        var k = 0
        for j in range {
            if bytes[j] != key.utf8Start[k] { return false }
            k += 1
        }
        return true
    }

    private mutating func value(summary: inout Summary) -> Bool {
        guard let c = peek() else { return false }
        switch c {
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
        guard i + n <= bytes.count else { return false }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { return false }
        i += n
        return true
    }

    /// A JSON number per RFC 8259's grammar.
    private mutating func number() -> Bool {
        let start = i
        _ = expect(UInt8(ascii: "-"))
        guard let first = peek(), isDigit(first) else { return false }
        if first == UInt8(ascii: "0") {
            i += 1
        } else {
            while let d = peek(), isDigit(d) { i += 1 }
        }
        if expect(UInt8(ascii: ".")) {
            guard let d = peek(), isDigit(d) else { return false }
            while let d = peek(), isDigit(d) { i += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            i += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
            guard let d = peek(), isDigit(d) else { return false }
            while let d = peek(), isDigit(d) { i += 1 }
        }
        return i > start
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// A JSON string at `i`; returns the range of its raw contents (between the quotes).
    private mutating func stringRange() -> Range<Int>? {
        guard expect(UInt8(ascii: "\"")) else { return nil }
        let start = i
        while i < bytes.count {
            // Most string bytes are plain ASCII: skip them with one table lookup each.
            while i < bytes.count {
                let b = bytes[i]
                if b < 0x20 || b >= 0x80 || b == 0x22 || b == 0x5C { break }
                i += 1
            }
            guard i < bytes.count else { return nil }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let range = start..<i
                i += 1
                return range
            }
            if c < 0x20 { return nil }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard let e = peek() else { return nil }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 1
                case UInt8(ascii: "u"):
                    guard i + 5 <= bytes.count else { return nil }
                    for k in 1...4 where !isHex(bytes[i + k]) { return nil }
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

    private func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }

    /// Length of a valid UTF-8 multi-byte sequence at `p` (JSON text must be UTF-8).
    private func utf8SequenceLength(at p: Int) -> Int? {
        let c = bytes[p]
        let n: Int
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0...0xEF: n = 3
        case 0xF0...0xF4: n = 4
        default: return nil
        }
        guard p + n <= bytes.count else { return nil }
        for k in 1..<n where bytes[p + k] & 0xC0 != 0x80 { return nil }
        return n
    }
}
