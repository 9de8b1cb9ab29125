import CNGHTTP2
import WireBytes

/// Builds the `nghttp2_nv` array for one HEADERS submission in loop-owned memory.
///
/// nghttp2 copies values during `nghttp2_submit_*`, so one buffer per loop serves every connection on it and
/// a response costs no allocation here. The caller sizes the buffers first (`begin`) so the pointers handed
/// to nghttp2 stay valid while fields are added.
///
/// Names are the exception: a connection sends the same few names on every message, so the encoder keeps
/// each lowercase name it has sent (up to `internLimit`) and hands nghttp2 that copy with NO_COPY_NAME.
/// nghttp2 then neither copies nor lowercases it again (a byte-at-a-time pass per name, every response).
/// NO_COPY_NAME needs the name alive until its frame is sent: kept names live as long as the encoder, that
/// is as long as its event loop, which every connection (and so every nghttp2 session) on it holds strongly.
/// Fields marked `@exclusivity(unchecked)` skip Swift's dynamic exclusivity check: they are touched only on the
/// owning event loop, one call at a time, and no access to one overlaps another. See `ServerStream`.
final class HeaderEncoder {
    @exclusivity(unchecked) private var bytes: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var byteCapacity: Int
    @exclusivity(unchecked) private var nvs: UnsafeMutablePointer<nghttp2_nv>
    @exclusivity(unchecked) private var nvCapacity: Int
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private(set) var count = 0
    /// Lowercase names sent before, in memory of their own that lives as long as the encoder.
    @exclusivity(unchecked) private var names: [UnsafeRawBufferPointer] = []
    /// Names kept at most: the few a server or client sends again and again, not whatever it is asked to.
    static let internLimit = 32

    init() {
        byteCapacity = 8 * 1024
        bytes = .allocate(byteCount: byteCapacity, alignment: 8)
        nvCapacity = 64
        nvs = .allocate(capacity: nvCapacity)
    }

    deinit {
        bytes.deallocate()
        nvs.deallocate()
        for name in names { name.deallocate() }
    }

    /// Empties the encoder and makes room for `fields` fields totalling `byteCount` bytes.
    func begin(fields: Int, byteCount: Int) {
        used = 0
        count = 0
        if byteCount > byteCapacity {
            bytes.deallocate()
            byteCapacity = max(byteCount, byteCapacity * 2)
            bytes = .allocate(byteCount: byteCapacity, alignment: 8)
        }
        if fields > nvCapacity {
            nvs.deallocate()
            nvCapacity = max(fields, nvCapacity * 2)
            nvs = .allocate(capacity: nvCapacity)
        }
    }

    /// Adds a field named by a lowercase literal (a pseudo-header): its name is static memory, never copied.
    func add(_ name: StaticString, _ value: String) {
        let v = copy(value)
        append(name: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), value: v,
               flags: Self.noCopyName)
    }

    /// Adds field `index` of `list`, "never indexed" as the list says.
    func add(_ list: H2HeaderList, at index: Int) {
        let neverIndexed = list.isNeverIndexed(at: index)
        list.withBytes(at: index) { add(name: $0, value: $1, neverIndexed: neverIndexed) }
    }

    /// Adds a regular field from bytes (a header list's); its name is lowercased (RFC 9113 §8.2.1).
    func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, neverIndexed: Bool = false) {
        let flags = neverIndexed ? UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) : 0
        let v = copy(value, lowercase: false)
        if let kept = kept(name) {
            append(name: kept, value: v, flags: flags | Self.noCopyName)
        } else {
            append(name: UnsafeRawBufferPointer(copy(name, lowercase: true)), value: v, flags: flags)
        }
    }

    private static let noCopyName = UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue)

    /// The kept copy of `name` if it is lowercase: found among the names sent before, or kept now while there is
    /// room. nil for a name with capitals (copied and lowercased per message) or once the encoder is full.
    private func kept(_ name: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard !name.isEmpty else { return nil }
        for i in names.indices where bytesEqual(names[i], name) { return names[i] }
        guard names.count < Self.internLimit, !name.contains(where: { $0 >= 65 && $0 <= 90 }) else { return nil }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: name.count, alignment: 1)
        copy.copyMemory(from: name)
        names.append(UnsafeRawBufferPointer(copy))
        return names[names.count - 1]
    }

    /// Names kept so far (for tests).
    var keptNameCount: Int { names.count }

    /// Calls `body` with the array built so far.
    func withFields<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        body(UnsafePointer(nvs), count)
    }

    /// Copies text's bytes, read in place (`withUTF8Bytes`).
    private func copy(_ value: String) -> UnsafeMutableRawBufferPointer {
        withUTF8Bytes(value) { copy($0, lowercase: false) }
    }

    private func copy(_ source: UnsafeRawBufferPointer, lowercase: Bool) -> UnsafeMutableRawBufferPointer {
        precondition(used + source.count <= byteCapacity, "HeaderEncoder.begin sized too small")
        let start = bytes + used
        if source.count > 0 { start.copyMemory(from: source.baseAddress!, byteCount: source.count) }
        if lowercase { Self.lowercaseASCII(start, count: source.count) }
        used += source.count
        return UnsafeMutableRawBufferPointer(start: start, count: source.count)
    }

    /// Lowercases A–Z in place, eight bytes at a time (every response's names go through here); other
    /// bytes, including non-ASCII ones, are left as they are.
    static func lowercaseASCII(_ p: UnsafeMutableRawPointer, count: Int) {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        while i + 8 <= count {
            let w = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let low7 = w & ~high
            // High bit set per byte where 'A' <= byte <= 'Z' (and the byte itself is below 0x80).
            let upper = (low7 &+ ones &* (0x80 - 0x41)) & ~(low7 &+ ones &* (0x7F - 0x5A)) & ~w & high
            if upper != 0 { p.storeBytes(of: w | (upper >> 2), toByteOffset: i, as: UInt64.self) }
            i += 8
        }
        while i < count {
            let b = p.load(fromByteOffset: i, as: UInt8.self)
            if b >= 65 && b <= 90 { p.storeBytes(of: b | 0x20, toByteOffset: i, as: UInt8.self) }
            i += 1
        }
    }

    private func append(name: UnsafeRawBufferPointer, value: UnsafeMutableRawBufferPointer,
                        flags: UInt8 = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)) {
        precondition(count < nvCapacity, "HeaderEncoder.begin sized too few fields")
        // nghttp2 takes `uint8_t *` but never writes through a NO_COPY_NAME name (it would only lowercase a
        // copy of its own).
        nvs[count] = nghttp2_nv(
            name: UnsafeMutablePointer(mutating: name.baseAddress!.assumingMemoryBound(to: UInt8.self)),
            value: value.baseAddress!.assumingMemoryBound(to: UInt8.self),
            namelen: name.count, valuelen: value.count, flags: flags)
        count += 1
    }
}
