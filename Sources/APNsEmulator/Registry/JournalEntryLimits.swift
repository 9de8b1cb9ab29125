import H2Transport
import WireBytes

/// What one journal entry keeps of its request, and what the whole journal may hold: a request is journaled
/// whatever it is, so without these one hostile request (a header value as long as the header list allows, or a
/// body under a raised `--max-body-bytes`) would be copied whole into memory that `GET /_emulator/journal` then
/// serialises. A trimmed entry says so in its warnings.
enum JournalEntryLimits {
    /// Bytes kept of each header value: a provider token is well under 1 KiB.
    static let valueBytes = 4 * 1024
    /// Bytes kept of a body: APNs' largest payload is 5 KiB (VoIP), so only refused pushes lose anything.
    static let bodyBytes = 16 * 1024
    /// Memory the journal's entries may occupy; the oldest entries go first beyond it, as beyond its capacity.
    static let memoryBytes = 256 * 1024 * 1024

    /// Whether `request` must be trimmed before it is journaled; two comparisons for every push.
    @inline(__always)
    static func exceeded(by request: H2Request) -> Bool {
        request.body.count > bodyBytes || request.headers.byteCount > valueBytes
    }

    /// `request` with each header value and the body cut to the limits, and a warning for each cut.
    static func trimmed(_ request: H2Request) -> (request: H2Request, warnings: [String]) {
        var warnings: [String] = []
        var headers = H2HeaderList()
        for i in 0..<request.headers.count {
            request.headers.withBytes(at: i) { name, value in
                guard value.count > valueBytes else {
                    headers.append(name: name, value: value, neverIndexed: request.headers.isNeverIndexed(at: i))
                    return
                }
                headers.append(name: name, value: UnsafeRawBufferPointer(rebasing: value.prefix(valueBytes)))
                warnings.append("journal kept the first \(valueBytes) of the \(value.count) bytes of header "
                    + "'\(String(decoding: name, as: UTF8.self))'")
            }
        }
        var kept = H2Request(headers: headers, body: Array(request.body.prefix(bodyBytes)), streamID: request.streamID)
        kept.bodyLength = request.bodyLength
        kept.bodyExceededLimit = request.bodyExceededLimit
        if request.body.count > bodyBytes {
            warnings.append("journal kept the first \(bodyBytes) of the \(request.body.count) body bytes")
        }
        return (kept, warnings)
    }
}
