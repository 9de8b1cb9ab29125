import H2Transport
import WireBytes

/// A fast 64-bit fingerprint of a string's UTF-8 bytes, for tables the device path looks up on every push
/// (the notification centre's identifiers, the token registry's and the farm's tokens).
///
/// Not a cryptographic or flooding-resistant hash, and it needs not be: both tables hold keys the emulator
/// chose or the control API registered, and a collision costs one string comparison.
package enum Fingerprint {
    package static func of(_ text: String) -> UInt64 {
        withUTF8Bytes(text) { of(bytes: $0.assumingMemoryBound(to: UInt8.self)) }
    }

    package static func of(bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 8 <= bytes.count {
                h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 29
                i += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(bytes[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        }
        h ^= h >> 32
        return h
    }
}
