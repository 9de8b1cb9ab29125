/// Whether no byte is at or above 0x80, eight at a time: the byte forms of the journal's texts hold for ASCII only,
/// and each entry's string is checked whole on a filter's miss.
@inlinable
package func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var bits: UInt64 = 0, i = 0
    while i + 8 <= bytes.count {
        bits |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        i += 8
    }
    while i < bytes.count {
        bits |= UInt64(bytes[i])
        i += 1
    }
    return bits & 0x8080_8080_8080_8080 == 0
}
