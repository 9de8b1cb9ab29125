/// A replica's inbox stream, read with `XREAD BLOCK` on a connection of its own (a blocking read would hold
/// up every other command on a shared one).
final class RedisDeliveryInbox: SharedDeliveryInbox {
    private let address: RedisAddress
    private let stream: String
    private var connection: RedisConnection?
    /// The last entry read; starts at the newest entry when opened, so older hand-overs (meant for an earlier
    /// run under the same id) are not delivered again.
    private var lastId: String

    init(address: RedisAddress, stream: String) throws {
        self.address = address
        self.stream = stream
        let c = try RedisConnection(address)
        let newest = try c.command(["XREVRANGE", stream, "+", "-", "COUNT", "1"]).items.first?.items.first?.text
        lastId = newest ?? "0-0"
        connection = c
    }

    func next(waitMillis: Int) throws -> [[UInt8]] {
        if connection?.isOpen != true { connection = try RedisConnection(address) }
        guard let c = connection else { return [] }
        let reply = try c.command(["XREAD", "COUNT", "1000", "BLOCK", String(max(waitMillis, 1)), "STREAMS", stream, lastId])
        // [[stream, [[id, [field, value, …]], …]]], or null when nothing arrived in time.
        guard let entries = reply.items.first?.items.dropFirst().first?.items else { return [] }
        var out: [[UInt8]] = []
        out.reserveCapacity(entries.count)
        for entry in entries {
            let parts = entry.items
            guard parts.count == 2, let id = parts[0].text else { continue }
            lastId = id
            let fields = parts[1].items
            if fields.count >= 2, let value = fields[1].bytes { out.append(value) }
        }
        return out
    }

    func close() {
        connection?.close()
        connection = nil
    }
}
