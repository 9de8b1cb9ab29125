/// One header field as text.
public struct HeaderField: Sendable, Hashable {
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

/// Header fields in wire order, duplicates kept, pseudo-headers included, stored as bytes: a request's fields as
/// the transport fills them and the provider API's rules read them (this module sits below both).
///
/// APNs rules depend on order and on repetition (DuplicateHeaders), so this is a list, not a dictionary.
/// Names and values live in one byte array behind an index of ranges: filling it costs no allocation once
/// a pooled stream has grown its buffers, and hot-path checks compare bytes without building Strings.
public struct HeaderFields: Sendable, Sequence, Equatable {
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

        /// The field is sent "never indexed" in HPACK (`HeaderField.neverIndexed`).
        @usableFromInline static let neverIndexed: Int32 = 1
    }

    /// One array holds both the fields' index and their bytes: `fieldCapacity` index entries (`Field`, 20 bytes
    /// each) first, then names and values back to back (`used` bytes of them). Adding a field is then one
    /// uniqueness check, where an index array beside a byte array cost two, each a runtime call (nine fields a
    /// request). Both parts are kept at their high-water mark, not the content's length: emptying the list is a
    /// store, and a pooled stream's list settles at its request's size and allocates nothing after.
    @usableFromInline var storage: [UInt8] = []
    /// Index entries the front of `storage` has room for; names and values start after them (`dataStart`).
    @usableFromInline var fieldCapacity = 0
    @usableFromInline var used = 0
    @usableFromInline var fieldCount = 0

    @inlinable static var fieldStride: Int { MemoryLayout<Field>.stride }

    /// Where names and values begin in `storage`.
    @inlinable
    var dataStart: Int { fieldCapacity &* Self.fieldStride }

    /// Field `index`'s index entry; traps past `count` (the storage holds stale entries beyond it).
    @inlinable @inline(__always)
    func field(_ index: Int) -> Field {
        precondition(index >= 0 && index < fieldCount, "HeaderFields index out of range")
        return storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index &* Self.fieldStride, as: Field.self) }
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
        fieldCapacity = fields
        storage = [UInt8](repeating: 0, count: fields * Self.fieldStride + bytes)
    }

    public init(_ headers: [HeaderField]) {
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
        let ns = used, vs = used &+ name.count, end = vs &+ value.count
        if fieldCount == fieldCapacity || dataStart &+ end > storage.count { grow(fields: fieldCount &+ 1, bytes: end) }
        // Offsets are stored as Int32: a list holds one header block, which nghttp2 bounds far below 2 GiB.
        precondition(end <= Int(Int32.max), "HeaderFields larger than 2 GiB")
        let field = Field(nameStart: Int32(truncatingIfNeeded: ns), nameLength: Int32(truncatingIfNeeded: name.count),
                          valueStart: Int32(truncatingIfNeeded: vs), valueLength: Int32(truncatingIfNeeded: value.count),
                          flags: neverIndexed ? Field.neverIndexed : 0)
        let index = fieldCount, data = dataStart
        storage.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            if let n = name.baseAddress { copyBytes(to: base + data + ns, from: n, count: name.count) }
            if let v = value.baseAddress { copyBytes(to: base + data + vs, from: v, count: value.count) }
            base.storeBytes(of: field, toByteOffset: index &* Self.fieldStride, as: Field.self)
        }
        used = end
        fieldCount = index &+ 1
        if name.count > 0 && name[0] != UInt8(ascii: ":") {
            let bit = Self.nameBit(name)
            if regularNameBits & bit != 0 { regularNameBitCollided = true }
            regularNameBits |= bit
        } else {
            notePseudo(name, at: Int32(truncatingIfNeeded: index))
        }
    }

    /// Makes room for at least `fields` index entries and `bytes` of names and values, doubling what is short
    /// (as an array's append would: a pooled stream's list settles at its request size).
    @inline(never)
    private mutating func grow(fields: Int, bytes: Int) {
        let dataCapacity = storage.count - dataStart
        let newFields = fields > fieldCapacity ? Swift.max(fields, 2 * fieldCapacity, 8) : fieldCapacity
        let newData = bytes > dataCapacity ? Swift.max(bytes, 2 * dataCapacity) : dataCapacity
        var grown = [UInt8](repeating: 0, count: newFields * Self.fieldStride + newData)
        grown.withUnsafeMutableBytes { copyContents(to: $0, dataStart: newFields * Self.fieldStride) }
        storage = grown
        fieldCapacity = newFields
    }

    /// Writes this list's index entries at the start of `destination` and its names and values from `dataStart` on.
    private func copyContents(to destination: UnsafeMutableRawBufferPointer, dataStart destinationData: Int) {
        let indexBytes = fieldCount * Self.fieldStride, data = dataStart
        storage.withUnsafeBytes { src in
            if indexBytes > 0 { destination.baseAddress!.copyMemory(from: src.baseAddress!, byteCount: indexBytes) }
            if used > 0 { (destination.baseAddress! + destinationData).copyMemory(from: src.baseAddress! + data, byteCount: used) }
        }
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
    package func sameFields(as other: HeaderFields, exceptValueOf except: Int? = nil) -> Bool {
        guard used == other.used, fieldCount == other.fieldCount else { return false }
        let indexBytes = fieldCount * Self.fieldStride
        let skip = except.map { Int(field($0).valueStart)..<Int(field($0).valueStart + field($0).valueLength) } ?? used..<used
        return storage.withUnsafeBytes { a in
            other.storage.withUnsafeBytes { b in
                func equal(_ x: UnsafeRawPointer?, _ y: UnsafeRawPointer?, _ count: Int) -> Bool {
                    bytesEqual(UnsafeRawBufferPointer(start: x, count: count), UnsafeRawBufferPointer(start: y, count: count))
                }
                guard equal(a.baseAddress, b.baseAddress, indexBytes) else { return false }
                guard used > 0 else { return true }
                let da = a.baseAddress! + dataStart, db = b.baseAddress! + other.dataStart
                return equal(da, db, skip.lowerBound)
                    && equal(da + skip.upperBound, db + skip.upperBound, used - skip.upperBound)
            }
        }
    }

    /// Makes this list hold `other`'s fields in storage of its own, reused from one call to the next (no
    /// allocation once it has grown to the size it is given), never shared with `other`'s: the journal's copy of
    /// the request its shared tail came from, a connection's answers starting from the fields all of them carry.
    public mutating func copyFields(of other: HeaderFields) {
        if other.fieldCount > fieldCapacity || dataStart + other.used > storage.count {
            fieldCount = 0
            used = 0
            grow(fields: other.fieldCount, bytes: other.used)
        }
        let data = dataStart
        storage.withUnsafeMutableBytes { other.copyContents(to: $0, dataStart: data) }
        used = other.used
        fieldCount = other.fieldCount
        regularNameBits = other.regularNameBits
        regularNameBitCollided = other.regularNameBitCollided
        (methodAt, pathAt, authorityAt) = (other.methodAt, other.pathAt, other.authorityAt)
    }

    public subscript(index: Int) -> HeaderField {
        HeaderField(name(at: index), value(at: index), neverIndexed: isNeverIndexed(at: index))
    }

    /// Whether field `index` is to be sent "never indexed" (`HeaderField.neverIndexed`).
    @inlinable
    public func isNeverIndexed(at index: Int) -> Bool { field(index).flags & Field.neverIndexed != 0 }

    public func name(at index: Int) -> String {
        withBytes(at: index) { name, _ in String(decoding: name, as: UTF8.self) }
    }

    public func value(at index: Int) -> String {
        withValue(at: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the name and value bytes of field `index`, without copying.
    @inlinable
    public func withBytes<R>(at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let f = field(index)
        let data = dataStart
        return try storage.withUnsafeBytes { raw in
            try body(
                UnsafeRawBufferPointer(start: raw.baseAddress! + data + Int(f.nameStart), count: Int(f.nameLength)),
                UnsafeRawBufferPointer(start: raw.baseAddress! + data + Int(f.valueStart), count: Int(f.valueLength)))
        }
    }

    /// Whether field `index` is named exactly `name` (lowercase ASCII, as HTTP/2 requires).
    @inlinable
    public func nameEquals(at index: Int, _ name: StaticString) -> Bool {
        let f = field(index)
        return bytes(at: f.nameStart, count: f.nameLength, equal: name)
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
        return bytes(at: f.valueStart, count: f.valueLength, equal: value)
    }

    /// Whether the `count` stored bytes at `start` (from the data's start) are exactly `text`.
    @inlinable
    func bytes(at start: Int32, count: Int32, equal text: StaticString) -> Bool {
        guard Int(count) == text.utf8CodeUnitCount else { return false }
        let data = dataStart
        return storage.withUnsafeBytes { raw in
            memcmpEqual(raw.baseAddress! + data + Int(start), text.utf8Start, Int(count))
        }
    }

    /// Whether fields `a` and `b` have the same name (lengths first: the common "no" costs no byte compare).
    @inlinable
    public func namesEqual(_ a: Int, _ b: Int) -> Bool {
        let fa = field(a), fb = field(b)
        guard fa.nameLength == fb.nameLength else { return false }
        let data = dataStart
        return storage.withUnsafeBytes { raw in
            memcmpEqual(raw.baseAddress! + data + Int(fa.nameStart), raw.baseAddress! + data + Int(fb.nameStart), Int(fa.nameLength))
        }
    }

    /// Bytes of storage held for names and values (the high-water mark a pooled list keeps).
    package var storageBytes: Int { storage.count }

    /// The length of field `index`'s name in bytes.
    @inlinable
    public func nameLength(at index: Int) -> Int { Int(field(index).nameLength) }

    /// Whether field `index` is a pseudo-header (its name starts with ':').
    @inlinable
    public func isPseudo(at index: Int) -> Bool {
        let f = field(index)
        return f.nameLength > 0 && storage[dataStart + Int(f.nameStart)] == UInt8(ascii: ":")
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
    public static func == (a: HeaderFields, b: HeaderFields) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count {
            guard a.isNeverIndexed(at: i) == b.isNeverIndexed(at: i),
                  a.withBytes(at: i, { an, av in b.withBytes(at: i) { bn, bv in bytesEqual(an, bn) && bytesEqual(av, bv) } })
            else { return false }
        }
        return true
    }

    public func makeIterator() -> AnyIterator<HeaderField> {
        var i = 0
        return AnyIterator {
            guard i < self.count else { return nil }
            defer { i += 1 }
            return self[i]
        }
    }
}
