import WireBytes

/// The last payloads a shard parsed, newest first: a sender repeats its payload template, so a push usually
/// costs a byte comparison instead of a JSON parse.
struct PayloadCache: Sendable {
    private var entries: [(bytes: [UInt8], content: PushContent)] = []
    private static let kept = 8

    mutating func content(of payload: [UInt8]) -> PushContent {
        if let i = entries.firstIndex(where: { bytesEqual($0.bytes, payload) }) {
            if i != 0 { entries.insert(entries.remove(at: i), at: 0) }
            return entries[0].content
        }
        let content = PushContent(payload: payload)
        entries.insert((payload, content), at: 0)
        if entries.count > Self.kept { entries.removeLast() }
        return content
    }
}
