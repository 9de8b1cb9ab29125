import APNsEmulator
import APNsProtocol

/// The newest push fates, oldest first; once `capacity` is reached each new fate drops the oldest (a load
/// test records one or more per push).
///
/// Kept as bytes in an `EntryArena`, as the journal keeps requests. A ring of `PushFate` values made each
/// new fate overwrite one from 100,000 pushes earlier, releasing its strings (and freeing its apns-id) far
/// out of cache: ~5% of the CPU of a push delivered to a device (nghttp2-normalised `perf` units: 3.27 with
/// a 100,000-slot ring, 3.10 with 1,000 slots, 3.11 with this log keeping 100,000). Appending is a few
/// copies at the end of the current chunk, and dropping the oldest only counts it. Reads compare the stored
/// bytes and decode the matches; they serve the control API and scenarios, never the push path.
struct FateLog: ~Copyable {
    let capacity: Int
    private var arena = EntryArena()

    init(capacity: Int) {
        precondition(capacity > 0, "a fate log keeps at least one fate")
        self.capacity = capacity
    }

    /// Fates kept.
    var count: Int { arena.count }

    /// Bytes before the strings: length (UInt32), time (Int64), kind (its `ordinal`) and flags (UInt8 each).
    private static let fixedSize = 4 + 8 + 1 + 1
    /// Flag: the notification id is the apns-id (as for every push shown without a collapse id), so it is not
    /// written a second time.
    private static let notificationIdIsApnsId: UInt8 = 1

    /// Appends a fate from its fields, as the OS model has them (no `PushFate` is built to be encoded).
    /// `notificationIdIsApnsId` says the notification id is the apns-id without the caller copying it to say so.
    mutating func append(apnsId: String, deviceId: String, bundleId: String, token: String, kind: PushFate.Kind,
                         reason: String, at: Millis, notificationId: String?, notificationIdIsApnsId: Bool = false) {
        if arena.count >= capacity { arena.removeFirst() }
        // Equal strings sharing storage compare by pointer: the usual case costs no byte comparison.
        let sameId = notificationIdIsApnsId || notificationId == apnsId
        let maxBytes = Self.fixedSize + EntryByteWriter.size(apnsId) + EntryByteWriter.size(deviceId)
            + EntryByteWriter.size(bundleId) + EntryByteWriter.size(token) + EntryByteWriter.size(reason)
            + (sameId ? 0 : EntryByteWriter.size(notificationId))
        var (w, _) = arena.begin(maxBytes: maxBytes)
        w.int64(at)
        w.uint8(UInt8(kind.ordinal))
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
    /// stored bytes and only the matches decoded: the farm's lock, which delivery also takes, is held meanwhile.
    func matching(apnsId: String? = nil, deviceId: String? = nil, bundleId: String? = nil) -> [PushFate] {
        var out: [PushFate] = []
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
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> PushFate {
        var r = EntryByteReader(bytes, at: 4)
        let at = r.int64()
        let kinds = PushFate.Kind.allCases, kind = Int(r.uint8())
        precondition(kind < kinds.count, "fate log entry with an unknown kind")
        let sameId = r.uint8() & notificationIdIsApnsId != 0
        let apnsId = r.string() ?? ""
        return PushFate(apnsId: apnsId, deviceId: r.string() ?? "", bundleId: r.string() ?? "",
                        token: r.string() ?? "", fate: kinds[kind], reason: r.string() ?? "", at: at,
                        notificationId: sameId ? apnsId : r.string())
    }
}
