import APNsEmulator
import APNsProtocol

/// The newest push fates, oldest first; once `capacity` is reached each new fate drops the oldest (a load
/// test records one or more per push).
///
/// Kept as bytes in an `EntryArena`, as the journal keeps requests: appending is a few copies at the end of the
/// current chunk and dropping the oldest only counts it, where a ring of values would release the strings of a
/// fate 100,000 pushes old, far out of cache. Reads compare the stored bytes and decode the matches; they serve
/// the control API and scenarios, never the push path.
struct FateLog: ~Copyable {
    let capacity: Int
    private var arena = EntryArena()

    init(capacity: Int) {
        precondition(capacity > 0, "a fate log keeps at least one fate")
        self.capacity = capacity
    }

    /// Fates kept.
    var count: Int { arena.count }

    /// Bytes before the strings: length (UInt32), time (Int64), sequence number (UInt64), kind (its `ordinal`),
    /// code (its raw value) and flags (UInt8 each).
    private static let fixedSize = 4 + 8 + 8 + 1 + 1 + 1
    /// Flag: the notification id is the apns-id (every push shown without a collapse id), written once.
    private static let notificationIdIsApnsId: UInt8 = 1

    /// - Parameter seq: the step's place among all shards' steps (listings merge on it).
    mutating func append(_ fate: PushFate, seq: UInt64 = 0) {
        append(fate.fate, fate.code, fate.reason, at: fate.at, apnsId: fate.apnsId, deviceId: fate.deviceId,
               bundleId: fate.bundleId, token: fate.token, notificationId: fate.notificationId, seq: seq)
    }

    /// The same from the fields where the OS model has them: encoded in place, no `PushFate` built (one would
    /// retain its six strings, and the copies on its way here as many again).
    mutating func append(_ kind: PushFate.Kind, _ code: FateCode, _ reason: String, at: Millis, apnsId: String,
                         deviceId: String, bundleId: String, token: String,
                         notificationId: String?, seq: UInt64 = 0) {
        if arena.count >= capacity { arena.removeFirst() }
        let sameId = notificationId == apnsId
        let maxBytes = Self.fixedSize + EntryByteWriter.size(apnsId) + EntryByteWriter.size(deviceId)
            + EntryByteWriter.size(bundleId) + EntryByteWriter.size(token) + EntryByteWriter.size(reason)
            + (sameId ? 0 : EntryByteWriter.size(notificationId))
        var (w, _) = arena.begin(maxBytes: maxBytes)
        w.int64(at)
        w.int64(Int64(bitPattern: seq))
        w.uint8(UInt8(kind.ordinal))
        w.uint8(code.rawValue)
        w.uint8(sameId ? Self.notificationIdIsApnsId : 0)
        w.string(apnsId)
        w.string(deviceId)
        w.string(bundleId)
        w.string(token)
        w.string(reason)
        if !sameId { w.string(notificationId) }
        arena.commit(w)
    }

    /// Oldest first, those for `apnsId` (in either case), `deviceId` and `bundleId` (nil: any). Compared on the
    /// stored bytes and only the matches decoded: the shard's lock, which delivery also takes, is held meanwhile.
    func matching(apnsId: String? = nil, deviceId: String? = nil, bundleId: String? = nil) -> [PushFate] {
        numberedMatching(apnsId: apnsId, deviceId: deviceId, bundleId: bundleId).map(\.fate)
    }

    /// The same, each with its sequence number (to merge several shards' logs).
    func numberedMatching(apnsId: String? = nil, deviceId: String? = nil, bundleId: String? = nil)
        -> [(seq: UInt64, fate: PushFate)]
    {
        var out: [(seq: UInt64, fate: PushFate)] = []
        arena.forEach { bytes in
            var r = EntryByteReader(bytes, at: Self.fixedSize)
            let id = r.bytesOrNil(), device = r.bytesOrNil(), bundle = r.bytesOrNil()
            if Self.matches(device, deviceId) && Self.matches(bundle, bundleId)
                && Self.matches(id, apnsId, ignoringCase: true) {
                out.append(Self.decode(bytes))
            }
            return true
        }
        return out
    }

    /// The newest `recent` fates of each install in `installs`, oldest first, with their sequence numbers: one walk
    /// back from the newest fate for all of them (the device wall asks for dozens of apps; a walk each held the shard's lock, which
    /// delivery takes, once an app). Installs are told apart by a fingerprint of their device id, then compared whole.
    func newest(_ recent: Int, of installs: [InstallKey]) -> [InstallKey: [(seq: UInt64, fate: PushFate)]] {
        newest(recent, of: installs, fingerprint: { Fingerprint.of(bytes: $0) })
    }

    /// The same with the fingerprint given (a test makes every device id collide, so the exact comparison decides).
    func newest(_ recent: Int, of installs: [InstallKey], fingerprint: (UnsafeBufferPointer<UInt8>) -> UInt64)
        -> [InstallKey: [(seq: UInt64, fate: PushFate)]]
    {
        guard recent > 0, !installs.isEmpty else { return [:] }
        var byDevice: [UInt64: [Int]] = [:]
        for (i, key) in installs.enumerated() {
            var id = key.deviceId
            byDevice[id.withUTF8 { fingerprint($0) }, default: []].append(i)
        }
        // Chunk by chunk from the newest back, until every install has its `recent` (an app with that many fates in
        // the newest chunk, as under a load, costs a chunk's walk, not the whole log's).
        var found = [[UnsafeRawBufferPointer]](repeating: [], count: installs.count)
        var wanting = installs.count
        arena.forEachChunkFromNewest { chunk in
            var inChunk = [[UnsafeRawBufferPointer]](repeating: [], count: installs.count)
            for bytes in chunk {
                var r = EntryByteReader(bytes, at: Self.fixedSize)
                _ = r.bytesOrNil()
                guard let device = r.bytesOrNil(),
                      let candidates = byDevice[fingerprint(device.assumingMemoryBound(to: UInt8.self))],
                      let bundle = r.bytesOrNil() else { continue }
                for i in candidates where found[i].count < recent
                    && Self.matches(device, installs[i].deviceId) && Self.matches(bundle, installs[i].bundleId) {
                    inChunk[i].append(bytes)
                    // Only the newest `recent` are kept: trimmed in halves, so a busy app costs no shift per fate.
                    if inChunk[i].count - recent >= recent { inChunk[i].removeFirst(inChunk[i].count - recent) }
                }
            }
            for i in installs.indices where !inChunk[i].isEmpty {
                found[i] = Array((inChunk[i] + found[i]).suffix(recent))
                if found[i].count == recent { wanting -= 1 }
            }
            return wanting > 0
        }
        var out: [InstallKey: [(seq: UInt64, fate: PushFate)]] = [:]
        for (i, key) in installs.enumerated() { out[key] = found[i].map(Self.decode) }
        return out
    }

    /// Whether the stored field is `wanted` (nil: anything), with ASCII case folded when `ignoringCase`: the
    /// field it is asked for, the apns-id, is a UUID (validated before a push reaches a device), so that is
    /// what `lowercased()` would do.
    private static func matches(_ stored: UnsafeRawBufferPointer?, _ wanted: String?, ignoringCase: Bool = false) -> Bool {
        guard let wanted else { return true }
        guard let stored else { return false }
        guard ignoringCase else { return wanted.utf8.elementsEqual(stored) }
        let fold = { (b: UInt8) -> UInt8 in b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
        return wanted.utf8.count == stored.count && zip(stored, wanted.utf8).allSatisfy { fold($0) == fold($1) }
    }

    /// Reads back what `append` wrote (the arena only ever holds such entries).
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> (seq: UInt64, fate: PushFate) {
        var r = EntryByteReader(bytes, at: 4)
        let at = r.int64()
        let seq = UInt64(bitPattern: r.int64())
        let kinds = PushFate.Kind.allCases, kind = Int(r.uint8())
        precondition(kind < kinds.count, "fate log entry with an unknown kind")
        let codeByte = r.uint8()
        precondition(FateCode(rawValue: codeByte) != nil, "fate log entry with an unknown code")
        let code = FateCode(rawValue: codeByte)!
        let sameId = r.uint8() & notificationIdIsApnsId != 0
        let apnsId = r.string() ?? ""
        return (seq, PushFate(apnsId: apnsId, deviceId: r.string() ?? "", bundleId: r.string() ?? "",
                              token: r.string() ?? "", fate: kinds[kind], code: code, reason: r.string() ?? "", at: at,
                              notificationId: sameId ? apnsId : r.string()))
    }
}
