import APNsEmulator
import Testing

@testable import VirtualDevices

/// A shard's device store keeps its devices in creation order, which listings read a prefix of.
@Suite("DeviceStore: creation order")
struct DeviceStoreTests {
    static func store() -> DeviceStore {
        DeviceStore(queue: DeliveryQueue(), registrar: RegistryTokenRegistrar(tokens: TokenRegistry(), shard: 0, of: DeviceShards(count: 1)),
                    files: SharedFiles(), fates: FateRecorder(capacity: 10, sequence: FateSequence()))
    }

    static func device(_ id: String, number: Int) -> VirtualDevice {
        var d = VirtualDevice(configuration: DeviceConfiguration(id: id))
        d.creationNumber = number
        return d
    }

    @Test func devicesArrivingOutOfTheirCreationOrderAreListedInIt() {
        // Two creations racing to one shard take their numbers first and its lock after, so they may arrive swapped.
        var s = Self.store()
        for (id, n) in [("a", 1), ("c", 3), ("b", 2), ("e", 5), ("d", 4), ("z", 0)] { s.add(Self.device(id, number: n)) }
        #expect(s.order.map(\.id) == ["z", "a", "b", "c", "d", "e"])
        s.removeDevice("c")
        #expect(s.order.map(\.id) == ["z", "a", "b", "d", "e"] && s.devices["c"] == nil)
        s.add(Self.device("f", number: 6))
        #expect(s.order.map(\.number) == [0, 1, 2, 4, 5, 6])
    }
}
