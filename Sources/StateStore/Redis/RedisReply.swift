import CHiredis

/// One Redis reply, copied out of hiredis' reply object (which is freed at once).
enum RedisReply: Equatable {
    case string([UInt8])
    case status(String)
    case integer(Int64)
    case array([RedisReply])
    case null
    case error(String)

    /// Copies `reply` and its elements; does not free it.
    init(_ reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            self = .string(r.str.map { Array(UnsafeRawBufferPointer(start: $0, count: r.len)) } ?? [])
        case REDIS_REPLY_STATUS:
            self = .status(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: r.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_ERROR:
            self = .error(r.str.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: r.len), as: UTF8.self) } ?? "")
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(r.integer))
        case REDIS_REPLY_ARRAY:
            var items: [RedisReply] = []
            items.reserveCapacity(r.elements)
            for i in 0..<r.elements {
                if let element = r.element[i] { items.append(RedisReply(element)) } else { items.append(.null) }
            }
            self = .array(items)
        default:
            self = .null
        }
    }

    var bytes: [UInt8]? {
        if case .string(let b) = self { return b }
        return nil
    }

    var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// An array read as field, value pairs (HGETALL, a stream entry's fields); a trailing odd item is ignored.
    var pairs: [(RedisReply, RedisReply)] {
        let flat = items
        return stride(from: 0, to: flat.count - 1, by: 2).map { (flat[$0], flat[$0 + 1]) }
    }

    var items: [RedisReply] {
        if case .array(let a) = self { return a }
        return []
    }
}
