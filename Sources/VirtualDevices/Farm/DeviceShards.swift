import WireBytes

/// How devices are spread over the farm's shards: a device by its id, a token by its first byte. The farm
/// issues each app's token with a first byte that names its device's shard, so a push reaches the right
/// shard from its token alone, with no shared map to consult.
struct DeviceShards: Sendable {
    /// A power of two up to 16 (a byte's value modulo it is uniform over random tokens).
    let count: Int

    init(count: Int) {
        precondition(count >= 1 && count <= 16 && count & (count - 1) == 0, "a shard count of 1, 2, 4, 8 or 16")
        self.count = count
    }

    /// As many shards as cores, at least two (so the spread is exercised everywhere) and at most 16.
    static func forThisMachine(cores: Int) -> DeviceShards {
        var n = 2
        while n < min(16, cores) { n *= 2 }
        return DeviceShards(count: n)
    }

    func shard(ofFirstByte byte: UInt8) -> Int { Int(byte) & (count - 1) }

    /// The shard of a lowercase or uppercase hex token (from its first two digits); 0 for anything shorter.
    func shard(ofToken token: String) -> Int {
        withUTF8Bytes(token) { bytes -> Int in
            guard bytes.count >= 2, let high = Self.hexValue(bytes[0]), let low = Self.hexValue(bytes[1]) else { return 0 }
            return shard(ofFirstByte: high << 4 | low)
        }
    }

    /// The shard of a device id: FNV-1a over its bytes, its high bits folded down (FNV's low bits follow only
    /// the bytes' low bits), the same in every run.
    func shard(ofDevice id: String) -> Int {
        var hash: UInt32 = 0x811C_9DC5
        for b in id.utf8 { hash = (hash ^ UInt32(b)) &* 0x0100_0193 }
        hash ^= hash >> 16
        hash ^= hash >> 8
        return Int(hash) & (count - 1)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
