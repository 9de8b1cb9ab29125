/// A request's header list and body packed into one exact-size buffer, for keeping after the request is done
/// (the journal). One allocation per kept request instead of three, and no slack from pooled buffers.
public struct PackedRequest: Sendable {
    private let storage: [UInt8]
    private let headerByteCount: Int
    private let fieldCount: Int

    private static let fieldSize = MemoryLayout<H2HeaderList.Field>.stride

    public init(headers: H2HeaderList, body: [UInt8]) {
        headerByteCount = headers.bytes.count
        fieldCount = headers.fields.count
        let total = headerByteCount + fieldCount * Self.fieldSize + body.count
        storage = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var offset = 0
            headers.bytes.withUnsafeBytes { raw in
                if raw.count > 0 { UnsafeMutableRawPointer(buffer.baseAddress! + offset).copyMemory(from: raw.baseAddress!, byteCount: raw.count) }
                offset += raw.count
            }
            headers.fields.withUnsafeBytes { raw in
                if raw.count > 0 { UnsafeMutableRawPointer(buffer.baseAddress! + offset).copyMemory(from: raw.baseAddress!, byteCount: raw.count) }
                offset += raw.count
            }
            body.withUnsafeBytes { raw in
                if raw.count > 0 { UnsafeMutableRawPointer(buffer.baseAddress! + offset).copyMemory(from: raw.baseAddress!, byteCount: raw.count) }
                offset += raw.count
            }
            initialized = offset
        }
    }

    /// The header list, rebuilt (allocates; for readers of the journal, not the hot path).
    public var headers: H2HeaderList {
        var list = H2HeaderList()
        list.bytes = Array(storage[0..<headerByteCount])
        list.fields = storage.withUnsafeBytes { raw in
            (0..<fieldCount).map { i in
                raw.loadUnaligned(fromByteOffset: headerByteCount + i * Self.fieldSize, as: H2HeaderList.Field.self)
            }
        }
        return list
    }

    /// The body bytes.
    public var body: [UInt8] {
        Array(storage[(headerByteCount + fieldCount * Self.fieldSize)...])
    }

    /// Whether the body is empty (without copying it).
    public var bodyIsEmpty: Bool { storage.count == headerByteCount + fieldCount * Self.fieldSize }
}
