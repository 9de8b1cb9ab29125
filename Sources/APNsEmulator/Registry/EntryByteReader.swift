/// Reads back what `JournalByteWriter` wrote, in the same order.
struct JournalByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() -> UInt32 {
        precondition(offset + 4 <= bytes.count, "journal entry truncated")
        defer { offset += 4 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    mutating func int64() -> Int64 {
        precondition(offset + 8 <= bytes.count, "journal entry truncated")
        defer { offset += 8 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)
    }

    /// A length-prefixed byte string; nil when it was written as nil.
    mutating func bytesOrNil() -> UnsafeRawBufferPointer? {
        let n = uint32()
        if n == JournalByteWriter.nilLength { return nil }
        precondition(offset + Int(n) <= bytes.count, "journal entry truncated")
        defer { offset += Int(n) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(n)])
    }

    mutating func string() -> String? {
        bytesOrNil().map { String(decoding: $0, as: UTF8.self) }
    }
}
