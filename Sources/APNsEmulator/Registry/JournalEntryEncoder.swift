import APNsProtocol
import Foundation
import H2Transport
import WireBytes

/// Writes one journal entry into `EntryArena` memory: fixed-width fields, then length-prefixed strings,
/// the request's fields (authorization already redacted, so the secret part of a token is never kept) and
/// the body. `JournalStoredEntry` reads it back.
///
/// ```
/// 0   UInt32 total length        4  UInt8 kind (record / aside)  5  UInt8 environment
/// 6   UInt8 auth mode            7  UInt8 flags (Flag)           8  Int64 id
/// 16  Int64 receivedAt           24 UInt64 connectionId          32 Int64 durationMicros
/// 40  Int64 timestamp            48 Int64 priority               56 Int64 expiration
/// 64  Int32 status
/// 68  strings: reason, apnsId, apnsUniqueId, faultId, topic, collapseId, teamId, keyId, authDetail,
///     authRejection, pushType, token (as validated; nil means "read it from the path"),
///     path (the first `:path` field's value when the entry shares a tail written for another path;
///           nil when the tail, its own or shared, holds the entry's path)
///     UInt32 warning count, warnings
///     tail: UInt32 field count, (name, value) pairs, body
///       or: UInt32 sharedTailMarker, UInt32 distance back from this entry's start, UInt32 length
/// ```
/// A load test repeats one request: its fields and body (the tail, about two thirds of an entry) are then
/// stored once per chunk and later entries point back at that copy (a 100,000-entry journal of one repeated
/// push: 27 MiB instead of ~70). A fan-out repeats one request to many tokens: those share the tail too, each
/// entry keeping its own path before it. A back reference never leaves its chunk, and a chunk is reused only
/// once all its entries are dropped, so what an entry points at lives as long as it does. For one repeated
/// push this saves memory, not measurable CPU; for a fan-out it saves both (written whole, the tails of pushes
/// to 20 devices in turn took the journal from 4.2% of the server's CPU to 7.2%; shared, 5.1%).
/// An `aside` entry (appended whole as a `JournalEntry`) stops after the fixed part: `Journal` keeps its
/// value beside the arena by id.
enum JournalEntryEncoder {
    enum Kind: UInt8 { case record = 0, aside = 1 }

    /// Bits of the flags byte: which optional integers are present.
    enum Flag {
        static let timestamp: UInt8 = 1
        static let priority: UInt8 = 2
        static let expiration: UInt8 = 4
    }

    static let fixedSize = 68
    /// In place of a field count: the tail is an earlier entry's (see the layout).
    static let sharedTailMarker: UInt32 = 0xFFFF_FFFE
    /// A tail is shared only when longer than the reference replacing it.
    static let sharedTailReferenceSize = 12
    private static let redactedSuffix: StaticString = ".<redacted>"
    private static let redactedWhole: StaticString = "bearer <redacted>"

    /// An upper bound of what `write` writes for these.
    static func maxSize(_ r: borrowing JournalRecord, headers: H2HeaderList, body: [UInt8], summary s: RequestSummary) -> Int {
        var n = fixedSize
        n += EntryByteWriter.size(r.reason) + EntryByteWriter.size(r.apnsId)
            + EntryByteWriter.size(r.apnsUniqueId) + EntryByteWriter.size(r.faultId)
            + EntryByteWriter.size(s.topic) + EntryByteWriter.size(s.collapseId)
            + EntryByteWriter.size(s.teamId) + EntryByteWriter.size(s.keyId) + EntryByteWriter.size(s.authDetail)
            + EntryByteWriter.size(r.authRejection?.rawValue) + EntryByteWriter.size(s.pushType?.rawValue)
            + EntryByteWriter.size(s.token)
        n += 4 + 4  // the path's length prefix (its bytes are counted with the fields), the warning count
        for w in s.warnings { n += EntryByteWriter.size(w) }
        // A redacted authorization value can be longer than the original: "bearer <redacted>", or text
        // whose invalid UTF-8 was repaired (one byte becomes three) before ".<redacted>". Bounded without
        // looking for those fields: the slack only matters when a chunk is nearly full.
        n += 4 + headers.count * (8 + redactedWhole.utf8CodeUnitCount) + 3 * headers.byteCount
        n += 4 + body.count
        return n
    }

    /// Writes the record of a request as entry `id` after the length prefix `w` starts past (`EntryArena.append`
    /// stores it); returns the tail to offer the next entry. `previousTail` is the last tail written in full in
    /// the same chunk (nil when there is none): if this entry's tail has the same bytes, the entry points back
    /// at it instead of keeping a copy. `match` says how the request compares with what that tail was written
    /// from (`JournalTailSource`): the same, or the same but for its path, and the tail is not even written to be
    /// compared; in the second case the entry keeps its own path before the tail.
    static func write(_ r: borrowing JournalRecord, headers: H2HeaderList, body: [UInt8], summary s: RequestSummary, id: Int64,
                      to w: inout EntryByteWriter, previousTail: UnsafeRawBufferPointer?,
                      match: JournalTailSource.Match = .different)
        -> UnsafeRawBufferPointer
    {
        let base = w.base
        var flags: UInt8 = 0
        if r.timestamp != nil { flags |= Flag.timestamp }
        if s.priority != nil { flags |= Flag.priority }
        if s.expiration != nil { flags |= Flag.expiration }
        w.uint8(Kind.record.rawValue)
        w.uint8(r.environment == .sandbox ? 1 : 0)
        w.uint8(r.authMode.rawValue)
        w.uint8(flags)
        w.int64(id)
        w.int64(r.receivedAt)
        w.int64(Int64(bitPattern: r.connectionId))
        w.int64(r.durationMicros)
        w.int64(r.timestamp ?? 0)
        w.int64(Int64(s.priority ?? 0))
        w.int64(s.expiration ?? 0)
        w.uint32(UInt32(truncatingIfNeeded: Int32(clamping: r.status)))
        w.string(r.reason)
        w.string(r.apnsId)
        w.string(r.apnsUniqueId)
        w.string(r.faultId)
        w.string(s.topic)
        w.string(s.collapseId)
        w.string(s.teamId)
        w.string(s.keyId)
        w.string(s.authDetail)
        w.string(r.authRejection?.rawValue)
        w.string(s.pushType?.rawValue)
        w.string(storedToken(s.token, headers: headers))
        let sharing = match != .different && previousTail.map { $0.count > sharedTailReferenceSize } == true
        if sharing && match == .allButPath, let p = headers.pathIndex {
            headers.withValue(at: p) { w.bytes($0) }
        } else {
            w.uint32(EntryByteWriter.nilLength)
        }
        w.uint32(UInt32(s.warnings.count))
        for warning in s.warnings { w.string(warning) }
        if sharing, let previous = previousTail {
            writeReference(to: previous, at: base, &w)
            return previous
        }
        let tailStart = w.offset
        w.uint32(UInt32(headers.count))
        for i in 0..<headers.count {
            headers.withBytes(at: i) { name, value in
                w.bytes(name)
                if isAuthorization(name) { writeRedacted(value, to: &w) } else { w.bytes(value) }
            }
        }
        body.withUnsafeBytes { w.bytes($0) }
        var tail = UnsafeRawBufferPointer(start: base + tailStart, count: w.offset - tailStart)
        // Written first and compared after, so the comparison sees exactly what would be stored (authorization
        // redacted); the rewound bytes are overwritten by the next entry.
        if let previous = previousTail, previous.count == tail.count, tail.count > sharedTailReferenceSize,
           memcmp(previous.baseAddress!, tail.baseAddress!, tail.count) == 0 {
            w.rewind(to: tailStart)
            writeReference(to: previous, at: base, &w)
            tail = previous
        }
        return tail
    }

    /// In place of a tail: the marker, how far back from this entry's start (`base`) the tail is, its length.
    private static func writeReference(to tail: UnsafeRawBufferPointer, at base: UnsafeMutableRawPointer,
                                       _ w: inout EntryByteWriter) {
        w.uint32(sharedTailMarker)
        w.uint32(UInt32(UnsafeRawPointer(base) - tail.baseAddress!))
        w.uint32(UInt32(tail.count))
    }

    /// Writes the fixed part only, for an entry kept aside (see `Journal`).
    static let asideSize = fixedSize

    static func writeAside(id: Int64, to w: inout EntryByteWriter) {
        w.uint8(Kind.aside.rawValue)
        w.uint8(0)
        w.uint8(0)
        w.uint8(0)
        w.int64(id)
        for _ in 0..<6 { w.int64(0) }
        w.uint32(0)
    }

    /// The validated token as stored: nil when the path already names it as it reads back (`JournalStoredEntry`
    /// lowercases the path's token), as for nearly every push. That keeps 68 bytes, a cache line of memory the
    /// journal writes cold, out of each entry.
    static func storedToken(_ token: String?, headers: H2HeaderList) -> String? {
        guard let token, let p = headers.pathIndex else { return token }
        let named = headers.withValue(at: p) { path -> Bool in
            guard let rest = DeviceToken.tokenBytes(inPath: path) else { return false }
            return withUTF8Bytes(token) { bytesEqual(rest, $0) }
        }
        return named ? nil : token
    }

    private static func isAuthorization(_ name: UnsafeRawBufferPointer) -> Bool {
        let a: StaticString = "authorization"
        guard name.count == a.utf8CodeUnitCount else { return false }
        return memcmp(name.baseAddress!, a.utf8Start, name.count) == 0
    }

    /// `JournalRecord.redact` over bytes: everything up to the first ".", then ".<redacted>". Text that is
    /// not plain ASCII around that dot goes through the String version, whose idea of "." is a whole
    /// Character (a combining mark after the dot, say, makes it another character).
    private static func writeRedacted(_ value: UnsafeRawBufferPointer, to w: inout EntryByteWriter) {
        // memchr finds the dot; the bytes before it (and the one after) must be ASCII for the byte view to
        // agree with the Character view, checked eight at a time.
        let found = value.isEmpty ? nil : memchr(value.baseAddress!, Int32(UInt8(ascii: ".")), value.count)
        let dot = found.map { UnsafeRawPointer($0) - value.baseAddress! }
        let checked = dot.map { Swift.min($0 + 2, value.count) } ?? value.count
        if !isASCII(UnsafeRawBufferPointer(rebasing: value[..<checked])) {
            return w.string(JournalRecord.redact(String(decoding: value, as: UTF8.self)))
        }
        guard let dot else {
            return w.bytes(UnsafeRawBufferPointer(start: redactedWhole.utf8Start, count: redactedWhole.utf8CodeUnitCount))
        }
        w.uint32(UInt32(dot + redactedSuffix.utf8CodeUnitCount))
        w.raw(UnsafeRawBufferPointer(rebasing: value[..<dot]))
        w.raw(UnsafeRawBufferPointer(start: redactedSuffix.utf8Start, count: redactedSuffix.utf8CodeUnitCount))
    }
}
