/// Reads back what `EntryByteWriter` wrote, in the same order.
package struct EntryByteReader {
    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset: Int

    package init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    package mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func uint32() -> UInt32 {
        precondition(offset + 4 <= bytes.count, "log entry truncated")
        defer { offset += 4 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    package mutating func int64() -> Int64 {
        precondition(offset + 8 <= bytes.count, "log entry truncated")
        defer { offset += 8 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)
    }

    /// A length-prefixed byte string; nil when it was written as nil.
    package mutating func bytesOrNil() -> UnsafeRawBufferPointer? {
        let n = uint32()
        if n == EntryByteWriter.nilLength { return nil }
        precondition(offset + Int(n) <= bytes.count, "log entry truncated")
        defer { offset += Int(n) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(n)])
    }

    package mutating func string() -> String? {
        bytesOrNil().map { String(decoding: $0, as: UTF8.self) }
    }
}
