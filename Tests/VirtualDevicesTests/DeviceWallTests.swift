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

    @Test func theWallListsTheFirstDevicesByCreationAcrossShardsWithEachAppsNewestFates() async throws {
        try await DeviceHarness.run(configure: { $0.manualClock = true }) { h in
            // Forty devices over the farm's shards, each with two apps, and pushes to some of them.
            #expect(h.call("POST", "/_emulator/devices:batch",
                           #"{"count":40,"idPrefix":"d","template":{"apps":[{"bundleId":"com.example.app"},{"bundleId":"com.example.two"}]}}"#).status == 201)
            // Batch ids are the prefix and the device's number, created in that order.
            let everyId = (1...40).map { "d\($0)" }
            #expect(Set(try #require(h.call("GET", "/_emulator/devices").json["devices"] as? [[String: Any]])
                .compactMap { $0["id"] as? String }) == Set(everyId))
            var sent: [String: [String]] = [:]
            for id in everyId.prefix(6) {
                let token = try h.authorizedToken(h.appPath(id, "com.example.app"))
                for n in 0..<3 { sent[id, default: []].append(try await h.accepted(token, payload: #"{"aps":{"alert":"\#(n)"}}"#)) }
            }
            let wall = h.call("GET", "/_emulator/device-wall", query: [("limit", "5"), ("recent", "2")])
            #expect(wall.status == 200, "\(wall.text)")
            #expect(wall.json["totalDevices"] as? Int == 40)
            let devices = try #require(wall.json["devices"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            #expect(devices == Array(everyId.prefix(5)), "the first five in creation order, whatever their shards")
            let apps = try #require(wall.json["apps"] as? [[String: Any]])
            #expect(apps.count == 10)
            for app in apps {
                let device = try #require(app["deviceId"] as? String), bundle = try #require(app["bundleId"] as? String)
                let ids = (app["deliveries"] as? [[String: Any]] ?? []).compactMap { $0["apnsId"] as? String }
                let all = try #require(h.call("GET", "/_emulator/deliveries", query: [("deviceId", device), ("bundleId", bundle)])
                    .json["deliveries"] as? [[String: Any]]).compactMap { $0["apnsId"] as? String }
                #expect(ids == Array(all.suffix(2)), "\(device) \(bundle): the newest two fates, as the app's own list has them")
                if bundle == "com.example.app" { #expect(Set(ids).isSubset(of: Set(sent[device] ?? [])) && ids.count == 2) }
            }
        }
    }
}
