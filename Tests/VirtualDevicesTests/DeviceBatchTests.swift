import Testing

@testable import VirtualDevices

@Suite("POST /_emulator/devices:batch")
struct DeviceBatchTests {
    @Test func createsNumberedDevicesFromATemplateWithRegisteredTokensThatReceivePushes() async throws {
        try await DeviceHarness.run { h in
            let r = h.call("POST", "/_emulator/devices:batch", #"""
                {"count":5,"idPrefix":"load-","register":true,
                 "template":{"platform":"iOS","apps":[{"bundleId":"com.example.app"}]}}
                """#)
            try #require(r.status == 201, "\(r.text)")
            let devices = try #require(r.json["devices"] as? [[String: Any]])
            #expect(devices.compactMap { $0["id"] as? String } == (1...5).map { "load-\($0)" })
            let tokens = devices.compactMap { ($0["tokens"] as? [String: String])?["com.example.app"] }
            #expect(tokens.count == 5 && Set(tokens).count == 5, "\(devices)")
            #expect(h.farm.devices().map(\.id) == (1...5).map { "load-\($0)" })
            let app = h.appPath("load-3", "com.example.app")
            #expect(h.appState(app)["lifecycle"] as? String == "background", "\(h.appState(app))")
            #expect(h.appState(app)["authorizationStatus"] as? Int == 3, "authorized")
            let id = try await h.accepted(tokens[2])
            #expect(h.fates(id).last == "shown")
            #expect(h.notificationIds(app).count == 1)
        }
    }

    @Test func anExistingIdCreatesNothingAndBadFieldsSayWhatWasExpected() async throws {
        try await DeviceHarness.run { h in
            try h.device(id: "load-2")
            let clash = h.call("POST", "/_emulator/devices:batch", #"{"count":3,"idPrefix":"load-"}"#)
            #expect(clash.status == 409)
            #expect(clash.text.contains("load-2"), "\(clash.text)")
            #expect(h.farm.devices().map(\.id) == ["load-2"], "nothing was created")

            let zero = h.call("POST", "/_emulator/devices:batch", #"{"count":0}"#)
            #expect(zero.status == 400)
            #expect(zero.text.contains("field 'count' must be an integer from 1 to 100000"), "\(zero.text)")
            let withId = h.call("POST", "/_emulator/devices:batch", #"{"count":1,"template":{"id":"x"}}"#)
            #expect(withId.status == 400)
            #expect(withId.text.contains("template.id"), "\(withId.text)")
            let unknown = h.call("POST", "/_emulator/devices:batch", #"{"count":1,"templat":{}}"#)
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("templat"), "\(unknown.text)")
            let platform = h.call("POST", "/_emulator/devices:batch", #"{"count":1,"template":{"platform":"Android"}}"#)
            #expect(platform.status == 400)
            #expect(platform.text.contains("template.platform"), "\(platform.text)")
            let app = h.call("POST", "/_emulator/devices:batch", #"{"count":1,"template":{"apps":[{"bundleId":""}]}}"#)
            #expect(app.status == 400)
            #expect(app.text.contains("template.apps[0].bundleId"), "\(app.text)")
            let long = h.call("POST", "/_emulator/devices:batch",
                              #"{"count":100,"idPrefix":"\#(String(repeating: "p", count: 62))"}"#)
            #expect(long.status == 400)
            #expect(long.text.contains("field 'idPrefix' must be 1–61 characters"), "\(long.text)")
            let plain = h.call("POST", "/_emulator/devices:batch", #"{"count":2}"#)
            #expect(plain.status == 201)
            #expect((plain.json["devices"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["device-1", "device-2"])
        }
    }
}
