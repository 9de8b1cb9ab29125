import APNsProtocol

/// One entry of `EntryArena` read in place (layout: `JournalEntryEncoder`): enough to filter it without
/// building strings, and to build its `JournalEntry` when a reader wants it. Valid only while the bytes are.
struct JournalStoredEntry {
    let kind: JournalEntryEncoder.Kind
    let id: Int64
    private let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        kind = JournalEntryEncoder.Kind(rawValue: bytes[4]) ?? .record
        id = bytes.loadUnaligned(fromByteOffset: 8, as: Int64.self)
    }

    var status: Int { Int(bytes.loadUnaligned(fromByteOffset: 64, as: Int32.self)) }

    /// The strings after the fixed part, in the order the encoder writes them.
    private struct Strings {
        var reason, apnsId, apnsUniqueId, faultId, topic, collapseId, teamId, keyId, authDetail: UnsafeRawBufferPointer?
        var authRejection, pushType, token: UnsafeRawBufferPointer?
        /// The first `:path` field's value, when it is not the one in the (shared) tail.
        var path: UnsafeRawBufferPointer?
        /// Where the warnings start.
        var rest: EntryByteReader
    }

    private var strings: Strings {
        var r = EntryByteReader(bytes, at: JournalEntryEncoder.fixedSize)
        return Strings(reason: r.bytesOrNil(), apnsId: r.bytesOrNil(), apnsUniqueId: r.bytesOrNil(),
                       faultId: r.bytesOrNil(), topic: r.bytesOrNil(), collapseId: r.bytesOrNil(),
                       teamId: r.bytesOrNil(), keyId: r.bytesOrNil(), authDetail: r.bytesOrNil(),
                       authRejection: r.bytesOrNil(), pushType: r.bytesOrNil(), token: r.bytesOrNil(),
                       path: r.bytesOrNil(), rest: r)
    }

    /// Positions in `Strings`' order of the strings a filter reads without the rest.
    private enum StringIndex { static let reason = 0, apnsId = 1, topic = 4 }

    /// One of the strings after the fixed part, read without those after it: a filter on content runs over every
    /// entry, and most need one string of the thirteen.
    private func string(at index: Int) -> UnsafeRawBufferPointer? {
        var r = EntryByteReader(bytes, at: JournalEntryEncoder.fixedSize)
        for _ in 0..<index { _ = r.bytesOrNil() }
        return r.bytesOrNil()
    }

    /// Where the tail (field count, fields, body) starts in this entry.
    private func tailOffset(after rest: EntryByteReader) -> Int {
        var r = rest
        for _ in 0..<r.uint32() { _ = r.bytesOrNil() }
        return r.offset
    }

    /// A reader at the tail's field count: in this entry, or in the earlier entry whose tail it shares
    /// (same chunk, so the memory before this entry's start is valid).
    private func tail(at offset: Int) -> EntryByteReader {
        var r = EntryByteReader(bytes, at: offset)
        guard r.uint32() == JournalEntryEncoder.sharedTailMarker else { return EntryByteReader(bytes, at: offset) }
        let distance = Int(r.uint32()), length = Int(r.uint32())
        return EntryByteReader(UnsafeRawBufferPointer(start: bytes.baseAddress! - distance, count: length))
    }

    /// Appends the entry to `out` as a self-contained entry: a shared tail is copied in place of the
    /// reference (and the length prefix says so), so the copy reads back without the arena.
    func append(to out: inout [UInt8]) {
        guard kind == .record else { return out.append(contentsOf: bytes) }
        let offset = tailOffset(after: strings.rest)
        let t = tail(at: offset)
        guard t.bytes.baseAddress != bytes.baseAddress else { return out.append(contentsOf: bytes) }
        let start = out.count
        out.append(contentsOf: bytes[..<offset])
        out.append(contentsOf: t.bytes)
        let total = UInt32(out.count - start)
        withUnsafeBytes(of: total) { out.replaceSubrange(start..<start + 4, with: $0) }
    }

    /// Appends the entry to `out`, which holds earlier copied entries: a tail already copied into `out` is
    /// referred to (as the arena does within a chunk), any other is copied in. `tails` maps where each source tail
    /// starts to where its copy in `out` starts. A load that repeats one request copies its tail once per batch.
    func append(to out: inout [UInt8], sharing tails: inout [UInt: Int]) {
        guard kind == .record else { return out.append(contentsOf: bytes) }
        let offset = tailOffset(after: strings.rest)
        let t = tail(at: offset)
        let inline = t.bytes.baseAddress == bytes.baseAddress
        let source = inline ? bytes.baseAddress! + offset : t.bytes.baseAddress!
        let length = inline ? bytes.count - offset : t.bytes.count
        let start = out.count
        out.append(contentsOf: bytes[..<offset])
        if let at = tails[UInt(bitPattern: source)], length > JournalEntryEncoder.sharedTailReferenceSize {
            for word in [JournalEntryEncoder.sharedTailMarker, UInt32(start - at), UInt32(length)] {
                withUnsafeBytes(of: word) { out.append(contentsOf: $0) }
            }
        } else {
            tails[UInt(bitPattern: source)] = out.count
            out.append(contentsOf: UnsafeRawBufferPointer(start: source, count: length))
        }
        let total = UInt32(out.count - start)
        withUnsafeBytes(of: total) { out.replaceSubrange(start..<start + 4, with: $0) }
    }

    /// Whether a shared tail this entry refers to lies within the `before` bytes that precede it (a copy read
    /// back from elsewhere is checked before it is decoded).
    func tailIsWithin(_ before: Int) -> Bool {
        guard kind == .record else { return true }
        var r = EntryByteReader(bytes, at: tailOffset(after: strings.rest))
        guard r.uint32() == JournalEntryEncoder.sharedTailMarker else { return true }
        let distance = Int(r.uint32()), length = Int(r.uint32())
        return distance > 0 && distance <= before && length <= distance
    }

    /// The same test as `JournalFilter.matches` on the entry this record becomes; `aside` holds entries
    /// appended whole.
    func matches(_ m: JournalMatcher, aside: [Int64: JournalEntry]) -> Bool {
        let f = m.filter
        if kind == .aside { return aside[id].map(f.matches) ?? false }
        if let afterId = f.afterId, id <= afterId { return false }
        if let status = f.status, self.status != status { return false }
        if m.reason == nil && m.topic == nil && m.apnsId == nil && m.token == nil { return true }
        if let reason = m.reason, !reason.equals(string(at: StringIndex.reason)) { return false }
        if let topic = m.topic, !topic.equals(string(at: StringIndex.topic)) { return false }
        if let apnsId = m.apnsId, !apnsId.equalsIgnoringCase(string(at: StringIndex.apnsId)) { return false }
        if let token = m.token, let lowercased = m.lowercasedToken {
            let s = strings
            if let t = s.token {
                if !lowercased.equals(t) { return false }
            } else {
                // `DeviceToken.pathToken(inPath:) == token.lowercased()`, on the path's bytes.
                guard let path = s.path ?? Self.firstPath(in: tail(at: tailOffset(after: s.rest))),
                      let rest = DeviceToken.tokenBytes(inPath: path), !rest.isEmpty,
                      token.equalsIgnoringCase(rest) else { return false }
            }
        }
        return true
    }

    /// The text form the control API serves (see `JournalEntry`).
    func entry() -> JournalEntry {
        let fixed = bytes
        let flags = fixed[7]
        let s = strings
        var r = s.rest
        var warnings: [String] = []
        let warningCount = Int(r.uint32())
        warnings.reserveCapacity(warningCount + 1)
        for _ in 0..<warningCount { warnings.append(r.string() ?? "") }
        r = tail(at: r.offset)
        if let detail = s.authDetail { warnings.append("auth: \(String(decoding: detail, as: UTF8.self))") }
        let fieldCount = Int(r.uint32())
        var pairs: [[String]] = []
        pairs.reserveCapacity(fieldCount)
        var method = "", path = ""
        var firstPath: String?
        for _ in 0..<fieldCount {
            let name = r.string() ?? ""
            var value = r.string() ?? ""
            if name == ":method" { method = value }
            if name == ":path" {
                if firstPath == nil {
                    // The entry's own path, where it shares a tail written for another.
                    if let own = s.path { value = String(decoding: own, as: UTF8.self) }
                    firstPath = value
                }
                path = value
            }
            pairs.append([name, value])
        }
        let body = r.bytesOrNil() ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let token = s.token.map { String(decoding: $0, as: UTF8.self) } ?? firstPath.flatMap(DeviceToken.pathToken(inPath:))
        func text(_ b: UnsafeRawBufferPointer?) -> String? { b.map { String(decoding: $0, as: UTF8.self) } }
        func int64(_ offset: Int) -> Int64 { fixed.loadUnaligned(fromByteOffset: offset, as: Int64.self) }
        let authMode = JournalRecord.AuthMode(rawValue: fixed[6]) ?? .none
        return JournalEntry(
            id: id, receivedAt: int64(16), connectionId: UInt64(bitPattern: int64(24)),
            environment: fixed[5] == 1 ? .sandbox : .production, method: method, path: path, token: token,
            topic: text(s.topic), pushType: text(s.pushType),
            priority: flags & JournalEntryEncoder.Flag.priority != 0 ? Int(int64(48)) : nil,
            expiration: flags & JournalEntryEncoder.Flag.expiration != 0 ? int64(56) : nil,
            collapseId: text(s.collapseId), headers: pairs,
            payload: body.isEmpty ? nil : String(validating: body, as: UTF8.self), authMode: authMode.text,
            authOutcome: text(s.authRejection) ?? "accepted", teamId: text(s.teamId), keyId: text(s.keyId),
            status: status, reason: text(s.reason),
            timestamp: flags & JournalEntryEncoder.Flag.timestamp != 0 ? int64(40) : nil,
            apnsId: text(s.apnsId) ?? "", apnsUniqueId: text(s.apnsUniqueId), durationMicros: int64(32),
            faultId: text(s.faultId), warnings: warnings)
    }

    /// The value of the first `:path` field of a tail.
    private static func firstPath(in tail: EntryByteReader) -> UnsafeRawBufferPointer? {
        var r = tail
        for _ in 0..<r.uint32() {
            let name = r.bytesOrNil(), value = r.bytesOrNil()
            if let name, equal(name, ":path") { return value }
        }
        return nil
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ s: StaticString) -> Bool {
        a.count == s.utf8CodeUnitCount && a.elementsEqual(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
