/// Calls `body` with `text`'s UTF-8 bytes, read in place when the String is contiguous (native and small Strings
/// always are). `String.withUTF8` needs a mutable copy, which costs a retain and a release of the String's storage
/// on every call: on the push path (the device token, the apns-id) that was one pair a push per caller.
@inlinable
package func withUTF8Bytes<R>(_ text: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    if let result = try text.utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    var copy = text
    return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
}
