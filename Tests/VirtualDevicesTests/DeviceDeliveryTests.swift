import APNsEmulator
import APNsProtocol
import H2Transport
import Testing

@testable import VirtualDevices

/// APNs store-and-forward and the device's background rules, end to end on the manual clock.
@Suite("Devices: delivery queue semantics (end to end)")
struct DeviceDeliveryTests {
    static let background = [H2Header("apns-push-type", "background"), H2Header("apns-priority", "5")]
    static let silent = #"{"aps":{"content-available":1}}"#

    @Test func offlineDeviceGetsOnlyTheLatestPushWhenItComesBack() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let first = try await h.accepted(token, payload: #"{"aps":{"alert":"one"}}"#)
            let second = try await h.accepted(token, payload: #"{"aps":{"alert":"two"}}"#)
            #expect(h.fates(first) == ["stored", "coalesced"])
            #expect(h.fates(second) == ["stored"])
            #expect(h.notificationIds(app).isEmpty)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.fates(second) == ["stored", "shown"])
            #expect(h.notificationIds(app) == [second])
        }
    }

    @Test func expirationZeroIsDroppedForAnOfflineDevice() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let id = try await h.accepted(token, headers: [H2Header("apns-expiration", "0")])
            #expect(h.fates(id) == ["expired"])
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.notificationIds(app).isEmpty)
        }
    }

    @Test func storedPushExpiresWhenTheClockPassesItsExpiration() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"offline"}"#)
            let expiry = h.emu.clock.now() / 1000 + 60
            let id = try await h.accepted(token, headers: [H2Header("apns-expiration", "\(expiry)")])
            h.advance(seconds: 61)
            #expect(h.fates(id) == ["stored", "expired"])
            h.call("POST", "/_emulator/devices/phone/actions", #"{"action":"online"}"#)
            #expect(h.notificationIds(app).isEmpty)
        }
    }

    @Test func forceQuitAppDropsBackgroundPushesUntilLaunched() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            h.action(app, #"{"action":"launch"}"#)
            h.action(app, #"{"action":"forceQuit"}"#)
            let dropped = try await h.accepted(token, payload: Self.silent, headers: Self.background)
            #expect(h.fates(dropped) == ["dropped"])
            h.action(app, #"{"action":"launch"}"#)
            h.action(app, #"{"action":"background"}"#)
            let delivered = try await h.accepted(token, payload: Self.silent, headers: Self.background)
            #expect(h.fates(delivered) == ["delivered"])
        }
    }

    @Test func backgroundBudgetHoldsOnlyTheNewestUntilTheHourPasses() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device(budget: 2)
            let token = try h.authorizedToken(app)
            var ids: [String] = []
            for _ in 0..<4 { ids.append(try await h.accepted(token, payload: Self.silent, headers: Self.background)) }
            #expect(h.fates(ids[0]) == ["delivered"])
            #expect(h.fates(ids[1]) == ["delivered"])
            #expect(h.fates(ids[2]) == ["deferred", "coalesced"])
            #expect(h.fates(ids[3]) == ["deferred"])
            h.advance(seconds: 3601)
            #expect(h.fates(ids[3]) == ["deferred", "delivered"])
        }
    }

    @Test func lowPriorityPushesWaitTheConfiguredDelay() async throws {
        try await DeviceHarness.run(configure: { $0.lowPriorityDelaySeconds = 30 }) { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let id = try await h.accepted(token, headers: [H2Header("apns-priority", "5")])
            #expect(h.fates(id) == ["deferred"])
            h.advance(seconds: 29)
            #expect(h.fates(id) == ["deferred"])
            h.advance(seconds: 1)
            #expect(h.fates(id) == ["deferred", "shown"])
            #expect(h.notificationIds(app) == [id])
        }
    }

    @Test func aBatchFromTheEngineKeepsEachPushsOwnTimeAndTheQueuesRulesInOrder() async throws {
        // The engine's hand-over, called directly: pushes to one app in a row are handed over in one visit of it,
        // and a low-priority push among them still waits, in its place.
        try await DeviceHarness.run(configure: { $0.lowPriorityDelaySeconds = 30 }) { h in
            let app = try h.device()
            let token = try h.authorizedToken(app)
            let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
            func arrival(_ id: String, priority: Int, at ms: Millis, seq: UInt64) -> DeliveryArrival {
                let push = AcceptedPush(token: token, topic: "com.example.app", bundleId: "com.example.app", pushType: .alert,
                                        priority: priority, expiration: nil, collapseId: nil, apnsId: id, payload: body,
                                        environment: .sandbox)
                return DeliveryArrival(push: push, acceptedAt: ms, arrivesAt: ms, acceptedAtNanos: 0, seq: seq)
            }
            let t = h.emu.services.clock.now()
            let batch = [arrival("b-1", priority: 10, at: t + 1, seq: 0), arrival("b-2", priority: 10, at: t + 2, seq: 1),
                         arrival("b-3", priority: 5, at: t + 3, seq: 2), arrival("b-4", priority: 10, at: t + 4, seq: 3)]
            h.farm.deliver(batch[...], shard: h.farm.spread.shard(ofToken: token))
            let fates = h.farm.fates(deviceId: "phone").filter { $0.apnsId.hasPrefix("b-") }
            #expect(fates.map { "\($0.apnsId) \($0.fate.rawValue)" } == ["b-1 shown", "b-2 shown", "b-3 deferred", "b-4 shown"])
            #expect(fates.map(\.at) == [t + 1, t + 2, t + 3, t + 4], "each push is recorded at its own arrival")
            #expect(h.notificationIds(app) == ["b-4", "b-2", "b-1"])
        }
    }

    @Test func pushesToRegistryOnlyTokensReachNoDevice() async throws {
        try await DeviceHarness.run { h in
            _ = try h.device()
            let token = try h.emu.issueToken(environment: .sandbox)
            let id = try await h.accepted(token)
            #expect(h.fates(id).isEmpty)
        }
    }

    @Test func resetForgetsDevices() async throws {
        try await DeviceHarness.run { h in
            _ = try h.device()
            #expect(h.call("POST", "/_emulator/reset").status == 204)
            #expect((h.call("GET", "/_emulator/devices").json["devices"] as? [Any])?.isEmpty == true)
        }
    }
}
