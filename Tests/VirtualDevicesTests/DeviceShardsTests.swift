import Testing

@testable import VirtualDevices

@Suite("Device shards")
struct DeviceShardsTests {
    @Test func aTokenNamesItsShardByItsFirstByteInEitherCase() {
        let shards = DeviceShards(count: 4)
        #expect(shards.shard(ofToken: "00" + String(repeating: "a", count: 62)) == 0)
        #expect(shards.shard(ofToken: "07ff") == 3)
        #expect(shards.shard(ofToken: "0Aff") == 2)
        #expect(shards.shard(ofToken: "0aFF") == 2)
        #expect(shards.shard(ofToken: "x") == 0, "too short to name one")
        for byte in 0...255 as ClosedRange<UInt8> {
            let hex = String(byte, radix: 16)
            #expect(shards.shard(ofToken: (byte < 16 ? "0" : "") + hex + "00") == shards.shard(ofFirstByte: byte))
        }
    }

    @Test func theShardCountIsAPowerOfTwoFromTwoToSixteen() {
        #expect(DeviceShards.forThisMachine(cores: 1).count == 2)
        #expect(DeviceShards.forThisMachine(cores: 2).count == 2)
        #expect(DeviceShards.forThisMachine(cores: 3).count == 4)
        #expect(DeviceShards.forThisMachine(cores: 8).count == 8)
        #expect(DeviceShards.forThisMachine(cores: 64).count == 16)
    }

    @Test func everyDeviceTokenLandsInItsDevicesShardAndListingsMergeInOrder() async throws {
        try await DeviceHarness.run { h in
            let spread = h.farm.spread
            var tokens: [(device: String, token: String)] = []
            // Devices until every shard holds one (a handful; bounded in case the spread were broken).
            var covered = Set<Int>()
            for i in 0..<200 where covered.count < spread.count || tokens.count < 4 {
                let app = try h.device(id: "phone-\(i)")
                tokens.append(("phone-\(i)", try h.authorizedToken(app)))
                covered.insert(spread.shard(ofDevice: "phone-\(i)"))
            }
            #expect(covered.count == spread.count, "devices reach every one of \(spread.count) shards")
            for (device, token) in tokens {
                #expect(spread.shard(ofToken: token) == spread.shard(ofDevice: device), "\(device)'s token \(token)")
            }
            var ids: [String] = []
            for (_, token) in tokens.reversed() { ids.append(try await h.accepted(token)) }
            #expect(h.farm.devices().map(\.id) == tokens.map(\.device), "creation order across shards")
            let fates = h.farm.fates().filter { $0.fate == .shown }
            #expect(fates.map(\.apnsId) == ids.map { $0.lowercased() }, "the order the pushes were shown in")
            #expect(fates.map(\.deviceId) == tokens.reversed().map(\.device))
        }
    }
}
