import Glibc

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
