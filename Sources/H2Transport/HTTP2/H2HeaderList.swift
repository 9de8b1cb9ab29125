/// One header field as text.
public struct H2Header: Sendable, Hashable {
    public var name: String
    public var value: String
    /// Sent as "never indexed" in HPACK: for values unique to one message (ids), where inserting them into
    /// the compression table only evicts useful entries and costs the encoder a table insertion each time.
    public var neverIndexed: Bool

    public init(_ name: String, _ value: String, neverIndexed: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndexed = neverIndexed
    }
}

/// Header fields in wire order, duplicates kept, pseudo-headers included, stored as bytes.
///
/// APNs rules depend on order and on repetition (DuplicateHeaders), so this is a list, not a dictionary.
/// Names and values live in one byte array with an index of ranges: filling it costs no allocation once
/// a pooled stream has grown its buffers, and hot-path checks compare bytes without building Strings.
public struct H2HeaderList: Sendable, Sequence, Equatable {
    @usableFromInline
    struct Field: Sendable {
        @usableFromInline var nameStart: Int32
        @usableFromInline var nameLength: Int32
        @usableFromInline var valueStart: Int32
        @usableFromInline var valueLength: Int32
        /// `Field.neverIndexed` or 0.
        @usableFromInline var flags: Int32

        @usableFromInline
        init(nameStart: Int32, nameLength: Int32, valueStart: Int32, valueLength: Int32, flags: Int32 = 0) {
            self.nameStart = nameStart
            self.nameLength = nameLength
            self.valueStart = valueStart
            self.valueLength = valueLength
            self.flags = flags
        }

        /// The field is sent "never indexed" in HPACK (`H2Header.neverIndexed`).
        @usableFromInline static let neverIndexed: Int32 = 1
    }

    /// Names and values back to back in `bytes[0..<used]`. The array's own count is its high-water mark, not
    /// the content's length: appending a field is then one uniqueness check and two copies, where
    /// `append(contentsOf:)` per name and value paid a generic call, a uniqueness and a capacity check each
    /// (nine fields a request).
    @usableFromInline var bytes: [UInt8] = []
    @usableFromInline var used = 0
    /// The fields' index: the first `fieldCount` entries. Kept at its high-water mark like `bytes`, so emptying
    /// the list is a store and adding a field overwrites an entry instead of appending (a request's nine fields
    /// paid an append's capacity and count bookkeeping each, and emptying a pooled stream's list a generic
    /// range replacement).
    @usableFromInline var fields: [Field] = []
    @usableFromInline var fieldCount = 0

    /// Field `index`'s index entry; traps past `count` (the array holds stale entries beyond it).
    @inlinable @inline(__always)
    func field(_ index: Int) -> Field {
        precondition(index >= 0 && index < fieldCount, "H2HeaderList index out of range")
        return fields[index]
    }
    /// One bit per regular (non-pseudo) name seen, at `nameBit`: a repeated name always finds its bit set,
    /// so a clear bit rules repetition out without comparing names pairwise.
    @usableFromInline var regularNameBits: UInt64 = 0
    /// Whether a regular name's bit was already set when it was added: a repeat, or two names sharing a bit.
    @usableFromInline var regularNameBitCollided = false
    /// Where the first `:method`, `:path` and `:authority` are (-1: absent), noted as fields are added: the
    /// layers above look these up on every request.
    @usableFromInline var methodAt: Int32 = -1
    @usableFromInline var pathAt: Int32 = -1
    @usableFromInline var authorityAt: Int32 = -1

    public init() {}

    /// An empty list with room for `bytes` of names and values in `fields` fields (a request's usual size).
    public init(reservingBytes bytes: Int, fields: Int) {
        self.bytes = [UInt8](repeating: 0, count: bytes)
        self.fields.reserveCapacity(fields)
    }

    public init(_ headers: [H2Header]) {
        for h in headers { append(name: h.name, value: h.value, neverIndexed: h.neverIndexed) }
    }

    @inlinable
    public var count: Int { fieldCount }
    @inlinable
    public var isEmpty: Bool { fieldCount == 0 }
    /// Bytes of all names and values together (for sizing a copy).
    @inlinable
    public var byteCount: Int { used }

    /// False when no regular field name can occur twice, decided as fields are added. True means one might
    /// (two names share a summary bit), so a caller that must know compares names; a request's usual
    /// headers (authorization, apns-*, content-length, user-agent) share no bit, so that check, quadratic
    /// in the fields, is skipped for them.
    @inlinable
    public var mayRepeatRegularName: Bool { regularNameBitCollided }

    /// The summary bit of a regular name: its length, last and middle bytes mixed (names arrive lowercase).
    @inlinable
    static func nameBit(_ name: UnsafeRawBufferPointer) -> UInt64 {
        let n = name.count
        let mixed = n ^ (Int(name[n - 1]) << 2) ^ Int(name[n / 2])
        return 1 << UInt64(mixed & 63)
    }

    public mutating func append(name: String, value: String, neverIndexed: Bool = false) {
        withUTF8Bytes(name) { n in
            withUTF8Bytes(value) { v in append(name: n, value: v, neverIndexed: neverIndexed) }
        }
    }

    /// Appends raw bytes (as received from nghttp2: already lowercase and validated by it).
    public mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, neverIndexed: Bool = false) {
        let ns = used, vs = used + name.count, end = vs + value.count
        if end > bytes.count {
            // Doubling, as append would: a pooled stream's buffer settles at its request size.
            bytes.append(contentsOf: repeatElement(0, count: Swift.max(end, 2 * bytes.count) - bytes.count))
        }
        bytes.withUnsafeMutableBytes { raw in
            if let n = name.baseAddress { copyBytes(to: raw.baseAddress! + ns, from: n, count: name.count) }
            if let v = value.baseAddress { copyBytes(to: raw.baseAddress! + vs, from: v, count: value.count) }
        }
        used = end
        if name.count > 0 && name[0] != UInt8(ascii: ":") {
            let bit = Self.nameBit(name)
            if regularNameBits & bit != 0 { regularNameBitCollided = true }
            regularNameBits |= bit
        } else {
            notePseudo(name, at: Int32(fieldCount))
        }
        let field = Field(nameStart: Int32(ns), nameLength: Int32(name.count), valueStart: Int32(vs),
                          valueLength: Int32(value.count), flags: neverIndexed ? Field.neverIndexed : 0)
        if fieldCount < fields.count { fields[fieldCount] = field } else { fields.append(field) }
        fieldCount += 1
    }

    private mutating func notePseudo(_ name: UnsafeRawBufferPointer, at index: Int32) {
        func named(_ pseudo: StaticString) -> Bool { memcmpEqual(name.baseAddress!, pseudo.utf8Start, name.count) }
        switch name.count {
        case 5: if pathAt < 0 && named(":path") { pathAt = index }
        case 7: if methodAt < 0 && named(":method") { methodAt = index }
        case 10: if authorityAt < 0 && named(":authority") { authorityAt = index }
        default: break
        }
    }

    /// The index of the first `:method` field, if any (no search: noted when it was added).
    @inlinable
    public var methodIndex: Int? { methodAt < 0 ? nil : Int(methodAt) }

    /// The index of the first `:path` field, if any (no search).
    @inlinable
    public var pathIndex: Int? { pathAt < 0 ? nil : Int(pathAt) }

    /// The index of the first `:authority` field, if any (no search).
    @inlinable
    public var authorityIndex: Int? { authorityAt < 0 ? nil : Int(authorityAt) }

    /// Empties the list but keeps its storage (a pooled stream's next request, a connection's next answer).
    public mutating func removeAll() {
        used = 0
        regularNameBits = 0
        regularNameBitCollided = false
        (methodAt, pathAt, authorityAt) = (-1, -1, -1)
        fieldCount = 0
    }

    /// Whether `other` holds the same fields in the same order, byte for byte, but for the value of field
    /// `except` (nil: every byte counts): comparisons of memory. Equal lengths in equal order put every field at
    /// the same offsets, so the index compares as memory too, and a skipped value lies at the same place in both
    /// (the journal skips the first `:path`'s: a fan-out's pushes differ in their path's token alone).
    package func sameFields(as other: H2HeaderList, exceptValueOf except: Int? = nil) -> Bool {
        let indexBytes = fieldCount * MemoryLayout<Field>.stride
        guard used == other.used, fieldCount == other.fieldCount,
              fields.withUnsafeBytes({ a in
                  other.fields.withUnsafeBytes { b in
                      bytesEqual(UnsafeRawBufferPointer(rebasing: a[..<indexBytes]), UnsafeRawBufferPointer(rebasing: b[..<indexBytes]))
                  }
              }) else { return false }
        let skip = except.map { Int(field($0).valueStart)..<Int(field($0).valueStart + field($0).valueLength) } ?? used..<used
        return bytes.withUnsafeBytes { a in
            other.bytes.withUnsafeBytes { b in
                bytesEqual(UnsafeRawBufferPointer(rebasing: a[..<skip.lowerBound]), UnsafeRawBufferPointer(rebasing: b[..<skip.lowerBound]))
                    && bytesEqual(UnsafeRawBufferPointer(rebasing: a[skip.upperBound..<used]),
                                  UnsafeRawBufferPointer(rebasing: b[skip.upperBound..<used]))
            }
        }
    }

    /// Makes this list hold `other`'s fields in storage of its own, reused from one call to the next (no
    /// allocation once it has grown to the size it is given), never shared with `other`'s: the journal's copy of
    /// the request its shared tail came from, a connection's answers starting from the fields all of them carry.
    public mutating func copyFields(of other: H2HeaderList) {
        if bytes.count < other.used { bytes = [UInt8](repeating: 0, count: Swift.max(other.used, 2 * bytes.count)) }
        if other.used > 0 {
            bytes.withUnsafeMutableBytes { dst in
                other.bytes.withUnsafeBytes { src in dst.baseAddress!.copyMemory(from: src.baseAddress!, byteCount: other.used) }
            }
        }
        used = other.used
        // The index too at its high-water mark: entries overwritten in place, none removed.
        if fields.count < other.fieldCount { fields.append(contentsOf: other.fields[fields.count..<other.fieldCount]) }
        fields.withUnsafeMutableBufferPointer { dst in
            other.fields.withUnsafeBufferPointer { src in
                for i in 0..<other.fieldCount { dst[i] = src[i] }
            }
        }
        fieldCount = other.fieldCount
        regularNameBits = other.regularNameBits
        regularNameBitCollided = other.regularNameBitCollided
        (methodAt, pathAt, authorityAt) = (other.methodAt, other.pathAt, other.authorityAt)
    }

    public subscript(index: Int) -> H2Header {
        H2Header(name(at: index), value(at: index), neverIndexed: isNeverIndexed(at: index))
    }

    /// Whether field `index` is to be sent "never indexed" (`H2Header.neverIndexed`).
    @inlinable
    public func isNeverIndexed(at index: Int) -> Bool { field(index).flags & Field.neverIndexed != 0 }

    public func name(at index: Int) -> String {
        let f = field(index)
        return String(decoding: bytes[Int(f.nameStart)..<Int(f.nameStart + f.nameLength)], as: UTF8.self)
    }

    public func value(at index: Int) -> String {
        let f = field(index)
        return String(decoding: bytes[Int(f.valueStart)..<Int(f.valueStart + f.valueLength)], as: UTF8.self)
    }

    /// Calls `body` with the name and value bytes of field `index`, without copying.
    @inlinable
    public func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let f = field(index)
        return try bytes.withUnsafeBytes { raw in
            try body(
                UnsafeRawBufferPointer(rebasing: raw[Int(f.nameStart)..<Int(f.nameStart + f.nameLength)]),
                UnsafeRawBufferPointer(rebasing: raw[Int(f.valueStart)..<Int(f.valueStart + f.valueLength)]))
        }
    }

    /// Whether field `index` is named exactly `name` (lowercase ASCII, as HTTP/2 requires).
    @inlinable
    public func nameEquals(at index: Int, _ name: StaticString) -> Bool {
        let f = field(index)
        guard Int(f.nameLength) == name.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBytes { raw in
            memcmpEqual(raw.baseAddress! + Int(f.nameStart), name.utf8Start, Int(f.nameLength))
        }
    }

    /// Calls `body` with the value bytes of field `index`, without copying.
    @inlinable
    public func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withBytes(at: index) { _, value in try body(value) }
    }

    /// Whether field `index` has exactly the value `value`.
    @inlinable
    public func valueEquals(at index: Int, _ value: StaticString) -> Bool {
        let f = field(index)
        guard Int(f.valueLength) == value.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBytes { raw in
            memcmpEqual(raw.baseAddress! + Int(f.valueStart), value.utf8Start, Int(f.valueLength))
        }
    }

    /// Whether fields `a` and `b` have the same name (lengths first: the common "no" costs no byte compare).
    @inlinable
    public func namesEqual(_ a: Int, _ b: Int) -> Bool {
        let fa = field(a), fb = field(b)
        guard fa.nameLength == fb.nameLength else { return false }
        return bytes.withUnsafeBytes { raw in
            memcmpEqual(raw.baseAddress! + Int(fa.nameStart), raw.baseAddress! + Int(fb.nameStart), Int(fa.nameLength))
        }
    }

    /// Bytes of storage held for names and values (the high-water mark a pooled list keeps).
    var storageBytes: Int { bytes.count }

    /// The length of field `index`'s name in bytes.
    @inlinable
    public func nameLength(at index: Int) -> Int { Int(field(index).nameLength) }

    /// Whether field `index` is a pseudo-header (its name starts with ':').
    @inlinable
    public func isPseudo(at index: Int) -> Bool {
        let f = field(index)
        return f.nameLength > 0 && bytes[Int(f.nameStart)] == UInt8(ascii: ":")
    }

    /// The index of the first field named `name`, if any.
    @inlinable
    public func firstIndex(of name: StaticString) -> Int? {
        for i in 0..<fieldCount where nameEquals(at: i, name) { return i }
        return nil
    }

    /// The first value for `name` (case-insensitive, as stored names may not be lowercase: a list built from
    /// values), if any.
    public subscript(name: String) -> String? {
        let lower = name.lowercased()
        for i in 0..<fieldCount where self.name(at: i).lowercased() == lower { return value(at: i) }
        return nil
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        let lower = name.lowercased()
        return (0..<fieldCount).filter { self.name(at: $0).lowercased() == lower }.map { value(at: $0) }
    }

    /// Same fields in the same order: names, values and flags (not where they sit in storage).
    public static func == (a: H2HeaderList, b: H2HeaderList) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            guard a.isNeverIndexed(at: i) == b.isNeverIndexed(at: i),
                  a.withBytes(at: i, { an, av in b.withBytes(at: i) { bn, bv in bytesEqual(an, bn) && bytesEqual(av, bv) } })
            else { return false }
        }
        return true
    }

    public func makeIterator() -> AnyIterator<H2Header> {
        var i = 0
        return AnyIterator {
            guard i < self.count else { return nil }
            defer { i += 1 }
            return self[i]
        }
    }
}

@inlinable @inline(__always)
func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
