/// One request being received on a server connection; pooled per event loop (`ServerStreamPool`) so
/// steady-state traffic reuses header and body storage.
/// Fields marked `@exclusivity(unchecked)` skip Swift's dynamic exclusivity check: they are touched only on the
/// owning event loop (`preconditionInLoop`), one call at a time, and no access to one overlaps another (nothing
/// reached while one is being modified reaches back to it).
final class ServerStream {
    @exclusivity(unchecked) var id: Int32 = 0
    /// Its position in its connection's open streams (`H2ServerConnection.open`) while it is open.
    @exclusivity(unchecked) var openIndex = 0
    @exclusivity(unchecked) var headers = H2HeaderList(reservingBytes: 512, fields: 16)
    @exclusivity(unchecked) var body: [UInt8] = {
        // Room for a typical push payload from the start, instead of growing through 16, 32, 64… bytes.
        var b: [UInt8] = []
        b.reserveCapacity(512)
        return b
    }()
    /// The header list's size as SETTINGS_MAX_HEADER_LIST_SIZE counts it (name + value + 32 a field), trailers included.
    @exclusivity(unchecked) var headerListSize = 0
    @exclusivity(unchecked) var bodyLength = 0
    @exclusivity(unchecked) var bodyExceededLimit = false
    /// Set once a response was submitted; later responses for the stream are ignored.
    @exclusivity(unchecked) var responded = false
    /// The response body being sent; released when the stream closes.
    @exclusivity(unchecked) var outgoing: OutgoingBody? = nil

    func reset(id: Int32) {
        self.id = id
        headers.removeAll()
        headerListSize = 0
        body.removeAll(keepingCapacity: body.capacity <= 64 * 1024)
        bodyLength = 0
        bodyExceededLimit = false
        responded = false
        outgoing = nil
    }
}
