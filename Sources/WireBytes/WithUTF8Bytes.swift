/// Calls `body` with `text`'s UTF-8 bytes, read in place when the String is contiguous (native and small Strings
/// always are). `String.withUTF8` needs a mutable copy, which costs a retain and a release of the String's storage
/// on every call: on the push path (the device token, the apns-id) that was one pair a push per caller.
@inlinable @inline(__always)
package func withUTF8Bytes<R>(_ text: borrowing String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
        return result
    }
    var copy = copy text
    return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
}
