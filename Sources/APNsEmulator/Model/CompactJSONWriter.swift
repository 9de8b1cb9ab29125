import WireBytes

/// Writes compact JSON byte for byte as Foundation's `JSONEncoder` does with `.sortedKeys` and
/// `.withoutEscapingSlashes` (the control API's format), for answers too large to build through `Encodable`.
///
/// The caller writes an object's keys in sorted (byte) order itself; tests compare the output with
/// `JSONEncoder`'s. Strings are escaped as `JSONEncoder` escapes them: `"`, `\`, and control characters
/// (`\b \t \n \f \r`, else `\u00xx`); everything else, `/` and non-ASCII included, is written as it is.
package struct CompactJSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// True right after `{`, `[` or a key: the next value or key takes no comma before it.
    private var atStart = true

    package init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package mutating func beginObject() { open(UInt8(ascii: "{")) }
    package mutating func endObject() { close(UInt8(ascii: "}")) }
    package mutating func beginArray() { open(UInt8(ascii: "[")) }
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        atStart = true
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        atStart = false
    }

    /// `"name":`; `name` needs no escaping (a literal key of the caller's).
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        atStart = true
    }

    package mutating func value(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        withUTF8Bytes(text) { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func value(_ number: Int64) {
        separate()
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(number.magnitude)  // as UInt64: Int64.min has no magnitude as an Int64
    }

    package mutating func value(_ number: Int) { value(Int64(number)) }

    package mutating func value(_ number: UInt64) {
        separate()
        appendDigits(number)
    }

    /// `"name":value`.
    package mutating func field<V: CompactJSONValue>(_ name: StaticString, _ value: V) {
        key(name)
        value.write(to: &self)
    }

    /// `"name":value`, or nothing for nil (as `encodeIfPresent` leaves the key out).
    package mutating func field<V: CompactJSONValue>(_ name: StaticString, _ value: V?) {
        guard let value else { return }
        field(name, value)
    }

    package mutating func field(_ name: StaticString, _ texts: [String]) {
        key(name)
        beginArray()
        for t in texts { value(t) }
        endArray()
    }

    private mutating func appendDigits(_ number: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var m = number, i = buffer.count
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
            } while m != 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[i...]))
        }
    }

    private mutating func separate() {
        if atStart { atStart = false } else { bytes.append(UInt8(ascii: ",")) }
    }

    /// Appends `text` escaped, copying the runs that need no escape whole (as buffers: a slice is copied a byte at a
    /// time).
    private mutating func appendEscaped(_ text: UnsafeRawBufferPointer) {
        var run = 0
        for i in 0..<text.count {
            let b = text[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            if run < i { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[run..<i])) }
            run = i + 1
            bytes.append(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]])
            }
        }
        if run < text.count { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[run...])) }
    }
}

/// A value `CompactJSONWriter.field` writes.
package protocol CompactJSONValue {
    func write(to writer: inout CompactJSONWriter)
}

extension String: CompactJSONValue {
    package func write(to writer: inout CompactJSONWriter) { writer.value(self) }
}

extension Int64: CompactJSONValue {
    package func write(to writer: inout CompactJSONWriter) { writer.value(self) }
}

extension Int: CompactJSONValue {
    package func write(to writer: inout CompactJSONWriter) { writer.value(self) }
}

extension UInt64: CompactJSONValue {
    package func write(to writer: inout CompactJSONWriter) { writer.value(self) }
}
