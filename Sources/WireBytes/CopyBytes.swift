/// Copies `count` bytes between buffers that do not overlap; up to 16 bytes without calling `memmove`.
///
/// A request's header names, short values and the journal's small fields are mostly under 16 bytes, and
/// at two dozen copies a push the call into libc (not inlined by `copyMemory`) costs more than the copy:
/// two possibly overlapping word loads and stores do it instead.
@inlinable @inline(__always)
package func copyBytes(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
    switch count {
    case 8...16:
        let head = source.loadUnaligned(as: UInt64.self)
        let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        destination.storeBytes(of: head, as: UInt64.self)
        destination.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
    case 4..<8:
        let head = source.loadUnaligned(as: UInt32.self)
        let tail = source.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        destination.storeBytes(of: head, as: UInt32.self)
        destination.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
    case 1..<4:
        for i in 0..<count {
            destination.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
        }
    case 0:
        break
    default:
        destination.copyMemory(from: source, byteCount: count)
    }
}
