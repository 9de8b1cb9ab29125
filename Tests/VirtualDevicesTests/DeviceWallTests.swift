import APNsEmulator
import Foundation
import Testing

@testable import VirtualDevices

/// `GET /_emulator/device-wall`: the dashboard's whole device wall in one answer, bounded by `limit` and `recent`.
@Suite("Devices: the device wall in one answer")
struct DeviceWallTests {
    @Test func theWallHasEachAppsCentreAndNewestTimelineAndTheFirstDevicesOnly() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            let phone = try h.device(id: "phone")
            try h.device(id: "tablet")
            try h.device(id: "watch")
            let token = try h.authorizedToken(phone)
            let apnsId = try await h.accepted(token, payload: #"{"aps":{"alert":{"title":"On the wall"},"thread-id":"t"}}"#)

            let wall = h.call("GET", "/_emulator/device-wall", query: [("limit", "2"), ("recent", "1")])
            #expect(wall.status == 200, "\(wall.text)")
            #expect(wall.json["totalDevices"] as? Int == 3)
            let devices = try #require(wall.json["devices"] as? [[String: Any]])
            #expect(devices.compactMap { $0["id"] as? String } == ["phone", "tablet"], "the first two, in creation order")
            let apps = try #require(wall.json["apps"] as? [[String: Any]])
            #expect(apps.compactMap { $0["deviceId"] as? String } == ["phone", "tablet"])
            let app = try #require(apps.first)
            let centre = try #require(app["centre"] as? [String: Any])
            let shown = try #require((centre["notifications"] as? [[String: Any]])?.first?["notification"] as? [String: Any])
            #expect(shown["title"] as? String == "On the wall")
            #expect((centre["groups"] as? [[String: Any]])?.first?["threadIdentifier"] as? String == "t")
            // `recent=1`: only the newest of each (the push's last fate step, the last plugin call and event).
            let deliveries = try #require(app["deliveries"] as? [[String: Any]])
            #expect(deliveries.count == 1)
            #expect(deliveries.first?["apnsId"] as? String == apnsId)
            #expect(deliveries.first?["fate"] as? String == "shown")
            #expect((app["calls"] as? [[String: Any]])?.count == 1)
            #expect((app["events"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test func theWallsBoundsAreCheckedAndItsDefaultIsFiftyDevices() async throws {
        try await DeviceHarness.run { h in
            for (name, value) in [("limit", "0"), ("limit", "1001"), ("recent", "201"), ("recnt", "1")] {
                let r = h.call("GET", "/_emulator/device-wall", query: [(name, value)])
                #expect(r.status == 400, "\(name)=\(value) → \(r.status)")
                #expect(r.json["field"] as? String == name)
            }
            #expect(h.call("POST", "/_emulator/devices:batch",
                           #"{"count":55,"idPrefix":"d","template":{"apps":[{"bundleId":"com.example.app"}]}}"#).status == 201)
            let wall = h.call("GET", "/_emulator/device-wall")
            #expect(wall.json["totalDevices"] as? Int == 55)
            #expect((wall.json["devices"] as? [Any])?.count == 50)
        }
    }
}
