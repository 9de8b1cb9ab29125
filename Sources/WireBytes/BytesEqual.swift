#if canImport(Glibc)
import Glibc
#endif

/// Whether two buffers hold the same bytes, with one `memcmp` (`Array`'s `==` compares element by element: a
/// loop over every byte of a payload).
@inlinable
package func bytesEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
}

/// The same for two byte arrays.
@inlinable
package func bytesEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in bytesEqual(pa, pb) } }
}

/// Whether `count` bytes at `a` and `b` are equal, compared inline: for the short names and values of header
/// fields, where a call into libc costs more than the loop.
@inlinable @inline(__always)
package func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
