import H2Transport

/// An identifier's text kept inline when it fits an apns-id's 36 bytes: apns-ids, apns-unique-ids and the OS
/// notification identifiers made from them.
///
/// Every accepted push carries a fresh apns-id from the validator to its answer, the journal, a device's
/// notification centre and its fate. As a `String` (36 bytes, too long for a small string) that was the one
/// Swift heap allocation per push, retained at each of those stops and freed when the centre evicted the
/// notification a hundred deliveries later. As a value it is copied, never counted or freed.
///
/// Longer text (an `apns-collapse-id` up to 64 bytes, an id a test makes up) is kept as a `String`: only
/// text longer than 36 bytes ever is, so equal texts always have equal storage and the synthesized
/// `Hashable` compares texts.
public struct CompactID: Sendable, Hashable, CustomStringConvertible {
    /// Bytes kept inline: an apns-id's 8-4-4-4-12 hex digits and hyphens.
    public static let inlineCapacity = 36

    @usableFromInline
    struct Inline: Sendable, Hashable {
        /// The text in `words`' first `count` bytes, zero after them (so equal texts have equal words).
        @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt32) = (0, 0, 0, 0, 0)
        @usableFromInline var count: UInt8 = 0

        @usableFromInline
        init() {}

        @usableFromInline
        static func == (a: Inline, b: Inline) -> Bool {
            a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
                && a.words.3 == b.words.3 && a.words.4 == b.words.4
        }

        @usableFromInline
        func hash(into hasher: inout Hasher) {
            hasher.combine(count)
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
            hasher.combine(words.4)
        }
    }

    @usableFromInline
    enum Storage: Sendable, Hashable {
        case inline(Inline)
        /// Only for text longer than `inlineCapacity`.
        case text(String)
    }

    @usableFromInline var storage: Storage

    /// The empty text.
    public init() { storage = .inline(Inline()) }

    public init(_ text: String) {
        guard text.utf8.count <= Self.inlineCapacity else {
            storage = .text(text)
            return
        }
        var copy = text
        storage = copy.withUTF8 { Self.storage(of: UnsafeRawBufferPointer($0)) }
    }

    /// The text of `bytes` (UTF-8).
    public init(bytes: UnsafeRawBufferPointer) {
        storage = bytes.count <= Self.inlineCapacity
            ? Self.storage(of: bytes) : .text(String(decoding: bytes, as: UTF8.self))
    }

    /// Writes up to `inlineCapacity` bytes through `fill`, which returns how many it wrote.
    @usableFromInline
    init(fillingInline fill: (UnsafeMutableRawBufferPointer) -> Int) {
        var inline = Inline()
        let n = withUnsafeMutableBytes(of: &inline.words) { raw in
            fill(UnsafeMutableRawBufferPointer(rebasing: raw[..<Self.inlineCapacity]))
        }
        precondition(n >= 0 && n <= Self.inlineCapacity, "CompactID: inline text too long")
        inline.count = UInt8(n)
        storage = .inline(inline)
    }

    /// `bytes` (at most `inlineCapacity` of them) inline.
    private static func storage(of bytes: UnsafeRawBufferPointer) -> Storage {
        var inline = Inline()
        if bytes.count > 0 {
            withUnsafeMutableBytes(of: &inline.words) {
                $0.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            }
        }
        inline.count = UInt8(bytes.count)
        return .inline(inline)
    }

    /// Calls `body` with the text's UTF-8 bytes, without copying them out.
    @inlinable
    public func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .inline(var inline):
            let n = Int(inline.count)
            return try withUnsafeBytes(of: &inline.words) { try body(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        case .text(var text):
            return try text.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The text's length in bytes.
    public var count: Int {
        switch storage {
        case .inline(let inline): return Int(inline.count)
        case .text(let text): return text.utf8.count
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The text as a `String` (a new one, heap-allocated past 15 bytes: for reads off the push path).
    public var string: String {
        switch storage {
        case .inline: return withUTF8 { String(decoding: $0, as: UTF8.self) }
        case .text(let text): return text
        }
    }

    public var description: String { string }

    /// Whether the text is `text`, compared as bytes (no `String` is made).
    public func equals(_ text: String) -> Bool {
        var text = text
        return withUTF8 { a in text.withUTF8 { b in bytesEqual(a, UnsafeRawBufferPointer(b)) } }
    }
}
