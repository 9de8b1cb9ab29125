import APNsEmulator
import Foundation
import H2Transport
import Testing

@testable import VirtualDevices

/// The devices endpoints: strict input (400 naming the field, nothing changed), 404/409, the document.
@Suite("Devices: control API input and document")
struct DevicesControlAPITests {
    func deviceCount(_ h: DeviceHarness) -> Int {
        (h.call("GET", "/_emulator/devices").json["devices"] as? [Any])?.count ?? -1
    }

    @Test func badDeviceBodiesAre400NamingTheFieldAndCreateNothing() async throws {
        try await DeviceHarness.run { h in
            let cases: [(String, String)] = [
                (#"{"platfrom":"iOS"}"#, "platfrom"),
                (#"{"platform":"android"}"#, "platform"),
                (#"{"id":"has space"}"#, "id"),
                (#"{"online":"yes"}"#, "online"),
                (#"{"backgroundBudgetPerHour":-1}"#, "backgroundBudgetPerHour"),
                (#"{"apps":[{"bundleId":"com.a"},{"bundleId":"com.a"}]}"#, "apps[1].bundleId"),
                (#"{"apps":[{"bundleId":"com.a","build":"beta"}]}"#, "apps[0].build"),
                (#"{"apps":[{"bundleId":"com.a","delegate":{"presentation":[9]}}]}"#, "apps[0].delegate.presentation[0]"),
                (#"{"apps":[{"bundleId":"com.a","delegate":{"forwarding":"sometimes"}}]}"#, "apps[0].delegate.forwarding"),
                (#"{"apps":[{"bundleId":"com.a","categories":[{"identifier":"C","actions":[{"identifier":"X"},{"identifier":"X"}]}]}]}"#,
                 "apps[0].categories[0].actions[1].identifier"),
                (#"{"apps":[{"bundleid":"com.a"}]}"#, "apps[0].bundleid"),
                (#"{"apps":[{"bundleId":"com.a","serviceExtension":{"handler":"sometimes"}}]}"#,
                 "apps[0].serviceExtension.handler"),
                (#"{"apps":[{"bundleId":"com.a","serviceExtension":{"decrypt":{"field":"e","key":"abc"}}}]}"#,
                 "apps[0].serviceExtension.decrypt.key"),
                (#"{"apps":[{"bundleId":"com.a","serviceExtension":{"memoryMB":-1}}]}"#, "apps[0].serviceExtension.memoryMB"),
                (#"{"apps":[{"bundleId":"com.a","contentExtension":{}}]}"#, "apps[0].contentExtension.categories"),
            ]
            for (body, field) in cases {
                let r = h.call("POST", "/_emulator/devices", body)
                #expect(r.status == 400, "\(body) → \(r.status) \(r.text)")
                #expect(r.json["field"] as? String == field, "\(body) → \(r.text)")
            }
            #expect(deviceCount(h) == 0, "no refused request created anything")
            let notJSON = h.call("POST", "/_emulator/devices", "{")
            #expect(notJSON.status == 400)
        }
    }

    @Test func badCallsAndActionsAre400AndChangeNothing() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            let before = h.call("GET", app).text
            let cases: [(String, String, String)] = [
                ("/calls", #"{"call":"GetTokens"}"#, "call"),
                ("/calls", #"{"call":"RequestAuthorization"}"#, "options"),
                ("/calls", #"{"call":"RequestAuthorization","options":[8]}"#, "options[0]"),
                ("/calls", #"{"call":"GetToken","count":1}"#, "count"),
                ("/calls", #"{"call":"SetBadgeCount","count":"3"}"#, "count"),
                ("/actions", #"{"action":"shake"}"#, "action"),
                ("/actions", #"{"action":"tap"}"#, "notificationId"),
                ("/actions", #"{"action":"launch","text":"x"}"#, "text"),
                ("/actions", #"{"action":"setNotificationsEnabled","enabled":"no"}"#, "enabled"),
            ]
            for (suffix, body, field) in cases {
                let r = h.call("POST", app + suffix, body)
                #expect(r.status == 400, "\(body) → \(r.status) \(r.text)")
                #expect(r.json["field"] as? String == field, "\(body) → \(r.text)")
            }
            #expect(h.call("GET", app).text == before, "state unchanged by refused input")
            #expect((h.call("GET", app + "/calls").json["calls"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func unknownDeviceAppOrNotificationIs404AndDuplicatesAre409() async throws {
        try await DeviceHarness.run { h in
            let app = try h.device()
            #expect(h.call("GET", "/_emulator/devices/nope").status == 404)
            #expect(h.call("GET", "/_emulator/devices/phone/apps/com.other").status == 404)
            #expect(h.action(app, #"{"action":"tap","notificationId":"missing"}"#).status == 404)
            #expect(h.call("POST", "/_emulator/devices", #"{"id":"phone"}"#).status == 409)
            #expect(h.call("POST", "/_emulator/devices/phone/apps", #"{"bundleId":"com.example.app"}"#).status == 409)
            #expect(h.action(app, #"{"action":"answerPrompt","allow":true}"#).status == 409)
            #expect(h.call("PUT", "/_emulator/devices").status == 405)
        }
    }

    @Test func iOSSetsNoCategoryLimitOnlyTheEmulatorsBoundIsRefused() async throws {
        try await DeviceHarness.run { h in
            // A managed SDK's 32-category, 3-action limits are not iOS's: a plain app may register more.
            let many = (0..<33).map { #"{"identifier":"C\#($0)"}"# }.joined(separator: ",")
            let four = #"{"identifier":"X","actions":[{"identifier":"A"},{"identifier":"B"},{"identifier":"C"},{"identifier":"D"}]}"#
            let ok = h.call("POST", "/_emulator/devices", #"{"id":"a","apps":[{"bundleId":"com.a","categories":[\#(many),\#(four)]}]}"#)
            #expect(ok.status == 201, "\(ok.text)")
            let tooMany = (0...1_000).map { #"{"identifier":"C\#($0)"}"# }.joined(separator: ",")
            let r = h.call("POST", "/_emulator/devices", #"{"id":"b","apps":[{"bundleId":"com.a","categories":[\#(tooMany)]}]}"#)
            #expect(r.status == 400)
            #expect(r.json["field"] as? String == "apps[0].categories")
            #expect((r.json["error"] as? String)?.contains("the emulator's bound") == true)
        }
    }

    @Test func filesAreUploadedServedListedAndDeleted() async throws {
        try await DeviceHarness.run { h in
            let png = Array(try Data(contentsOf: AttachmentValidatorTests.fixtures.appendingPathComponent("image.png")))
            let put = Reply(h.control.handle(HTTP1Request(method: "PUT", path: "/_emulator/files/a.png", body: png)))
            #expect(put.status == 201)
            #expect(put.json["bytes"] as? Int == png.count)
            let get = h.call("GET", "/_emulator/files/a.png")
            #expect(get.status == 200)
            #expect(get.response.body == png)
            #expect((h.call("GET", "/_emulator/files").json["files"] as? [[String: Any]])?.first?["name"] as? String == "a.png")
            #expect(h.call("DELETE", "/_emulator/files/a.png").status == 204)
            #expect(h.call("GET", "/_emulator/files/a.png").status == 404)
            #expect(Reply(h.control.handle(HTTP1Request(method: "PUT", path: "/_emulator/files/a b", body: png))).status == 400)
        }
    }

    @Test func everyDeviceRouteIsInTheServedDocumentAndViceVersa() async throws {
        try await DeviceHarness.run { h in
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(h.call("GET", "/_emulator/openapi.json")
                .response.body)) as? [String: Any])
            let paths = try #require(doc["paths"] as? [String: Any])
            var documented: [String: String] = [:]
            for (path, item) in paths {
                for (method, op) in (item as? [String: Any]) ?? [:] {
                    if let id = (op as? [String: Any])?["operationId"] as? String { documented["\(method.uppercased()) \(path)"] = id }
                }
            }
            for route in DevicesControlAPI(farm: h.farm).routes {
                #expect(documented["\(route.method) \(route.pattern)"] == route.operation, "\(route) undocumented")
            }
            #expect(documented["GET /_emulator/health"] == "health", "built-in operations are still there")
            let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
            let text = String(decoding: h.call("GET", "/_emulator/openapi.json").response.body, as: UTF8.self)
            for match in text.matches(of: /"#\/components\/schemas\/([A-Za-z]+)"/) {
                #expect(schemas[String(match.1)] != nil, "unresolved \(match.1)")
            }
        }
    }
}
