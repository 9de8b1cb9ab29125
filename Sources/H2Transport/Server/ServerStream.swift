/// One request being received on a server connection; pooled per event loop (`ServerStreamPool`) so
/// steady-state traffic reuses header and body storage.
final class ServerStream {
    var id: Int32 = 0
    /// Its position in its connection's open streams (`H2ServerConnection.open`) while it is open.
    var openIndex = 0
    var headers = H2HeaderList(reservingBytes: 512, fields: 16)
    var body: [UInt8] = {
        // Room for a typical push payload from the start, instead of growing through 16, 32, 64… bytes.
        var b: [UInt8] = []
        b.reserveCapacity(512)
        return b
    }()
    var bodyLength = 0
    var bodyExceededLimit = false
    /// Set once a response was submitted; later responses for the stream are ignored.
    var responded = false
    /// The response body being sent; released when the stream closes.
    var outgoing: OutgoingBody? = nil

    func reset(id: Int32) {
        self.id = id
        headers.removeAll()
        body.removeAll(keepingCapacity: body.capacity <= 64 * 1024)
        bodyLength = 0
        bodyExceededLimit = false
        responded = false
        outgoing = nil
    }
}
