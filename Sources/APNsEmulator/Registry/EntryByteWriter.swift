import H2Transport
import WireBytes

/// Appends fixed-width integers and length-prefixed byte strings to the entry an `EntryArena` has open.
///
/// Package-wide: the device farm encodes its push fates with it too.
///
/// Unaligned stores on purpose: entries are packed back to back. A byte string is a `UInt32` length and
/// the bytes; `UInt32.max` as the length means nil.
package struct EntryByteWriter {
    package static let nilLength = UInt32.max

    package let base: UnsafeMutableRawPointer
    package private(set) var offset = 0

    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// Bytes `string(_:)` writes for `s`, for sizing the reservation.
    package static func size(_ s: String?) -> Int { 4 + (s?.utf8.count ?? 0) }

    package mutating func uint8(_ v: UInt8) {
        base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self)
        offset += 1
    }

    package mutating func uint32(_ v: UInt32) {
        base.storeBytes(of: v, toByteOffset: offset, as: UInt32.self)
        offset += 4
    }

    package mutating func int64(_ v: Int64) {
        base.storeBytes(of: v, toByteOffset: offset, as: Int64.self)
        offset += 8
    }

    /// Forgets what was written from `position` on (a tail replaced by a reference to an identical one).
    package mutating func rewind(to position: Int) {
        precondition(position >= 0 && position <= offset, "rewind past what was written")
        offset = position
    }

    /// Writes `v` at an earlier position (the length prefix, once the entry is complete).
    package func uint32(_ v: UInt32, at position: Int) {
        base.storeBytes(of: v, toByteOffset: position, as: UInt32.self)
    }

    package mutating func bytes(_ b: UnsafeRawBufferPointer) {
        uint32(UInt32(b.count))
        raw(b)
    }

    /// Bytes without a length prefix (the caller wrote one covering several pieces).
    package mutating func raw(_ b: UnsafeRawBufferPointer) {
        if b.count > 0 { copyBytes(to: base + offset, from: b.baseAddress!, count: b.count) }
        offset += b.count
    }

    package mutating func string(_ s: String?) {
        guard let s else {
            uint32(Self.nilLength)
            return
        }
        withUTF8Bytes(s) { bytes($0) }
    }
}
