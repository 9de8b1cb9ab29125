import Foundation
import StateStore
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite("ControlAPI: /_emulator/faults")
struct ControlAPIFaultsTests {
    @Test func creatingAReasonFaultReturnsTheRule() throws {
        let f = try ControlAPIFixture()
        let token = String(repeating: "AB", count: 32)
        let reply = f.post("/_emulator/faults", #"""
            {"id":"bad-token","token":"\#(token)","topic":"com.example.app",
             "action":{"type":"reason","reason":"BadDeviceToken"},"count":2,"durationMs":60000}
            """#)
        #expect(reply.status == 201)
        #expect(reply.header("location") == "/_emulator/faults/bad-token")
        let json = reply.json
        #expect(json["id"] as? String == "bad-token")
        #expect(json["token"] as? String == token.lowercased())
        #expect(json["remaining"] as? Int == 2)
        #expect(json["expiresAt"] as? Int64 == ControlAPIFixture.start + 60000)
        #expect((json["action"] as? [String: Any])?["reason"] as? String == "BadDeviceToken")
        let rule = try #require(f.services.faults.all().first)
        #expect(rule.action == .reason("BadDeviceToken"))
        #expect(rule.token == token.lowercased())
    }

    @Test func everyActionTypeIsAccepted() throws {
        let f = try ControlAPIFixture()
        let cases: [(String, FaultAction)] = [
            (#"{"type":"delay","delayMs":250}"#, .delay(250)),
            (#"{"type":"reset-stream"}"#, .resetStream),
            (#"{"type":"goaway","reason":"IdleTimeout"}"#, .goAway(reason: "IdleTimeout")),
            (#"{"type":"goaway"}"#, .goAway(reason: "Shutdown")),
            (#"{"type":"shutdown"}"#, .shutdown),
        ]
        for (i, (action, expected)) in cases.enumerated() {
            let reply = f.post("/_emulator/faults", #"{"id":"f\#(i)","action":\#(action)}"#)
            #expect(reply.status == 201, "\(action): \(reply.text)")
            #expect(f.services.faults.all().first { $0.id == "f\(i)" }?.action == expected)
        }
    }

    @Test func omittedIdIsGenerated() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/faults", #"{"action":{"type":"shutdown"}}"#)
        #expect(reply.status == 201)
        #expect((reply.json["id"] as? String)?.hasPrefix("fault-") == true)
        #expect(reply.json["remaining"] == nil)
        #expect(reply.json["expiresAt"] == nil)
    }

    @Test func reasonMustBeAnAPNsReasonString() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/faults", #"{"action":{"type":"reason","reason":"BadToken"}}"#)
        #expect(reply.status == 400)
        #expect(reply.field == "action.reason")
        #expect(reply.error?.contains("BadDeviceToken") == true, "the message lists Apple's strings")
        let goaway = f.post("/_emulator/faults", #"{"action":{"type":"goaway","reason":"\"}"}}"#)
        #expect(goaway.field == "action.reason")
    }

    @Test func badFaultBodiesAreRefusedNamingTheField() throws {
        let f = try ControlAPIFixture()
        for (body, field) in [
            (#"{}"#, "action"),
            (#"{"action":"shutdown"}"#, "action"),
            (#"{"action":{}}"#, "action.type"),
            (#"{"action":{"type":"explode"}}"#, "action.type"),
            (#"{"action":{"type":"explode","reason":"Shutdown"}}"#, "action.type"),
            (#"{"action":{"type":"delay"}}"#, "action.delayMs"),
            (#"{"action":{"type":"delay","delayMs":-5}}"#, "action.delayMs"),
            (#"{"action":{"type":"delay","delayMs":600001}}"#, "action.delayMs"),
            (#"{"action":{"type":"delay","delayMs":5,"reason":"Shutdown"}}"#, "action.reason"),
            (#"{"action":{"type":"shutdown"},"count":0}"#, "count"),
            (#"{"action":{"type":"shutdown"},"durationMs":0}"#, "durationMs"),
            (#"{"action":{"type":"shutdown"},"token":"zz"}"#, "token"),
            (#"{"action":{"type":"shutdown"},"topic":""}"#, "topic"),
            (#"{"action":{"type":"shutdown"},"id":"has space"}"#, "id"),
            (#"{"action":{"type":"shutdown"},"remaining":3}"#, "remaining"),
        ] {
            let reply = f.post("/_emulator/faults", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.field == .some(field), "\(body): \(reply.text)")
        }
        #expect(f.services.faults.isEmpty)
    }

    @Test func unknownNestedFieldIsNamedWithItsPath() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/faults", #"{"action":{"type":"delay","delayMS":5}}"#)
        #expect(reply.field == "action.delayMS")
        #expect(reply.error == "unknown field 'action.delayMS' (expected one of: type, delayMs)")
    }

    @Test func sameIdReplacesTheRuleWith200() throws {
        let f = try ControlAPIFixture()
        #expect(f.post("/_emulator/faults", #"{"id":"x","action":{"type":"shutdown"}}"#).status == 201)
        #expect(f.post("/_emulator/faults", #"{"id":"x","action":{"type":"reset-stream"}}"#).status == 200)
        #expect(f.services.faults.all().map(\.action) == [.resetStream])
    }

    @Test func listGetAndDeleteFaults() throws {
        let f = try ControlAPIFixture()
        _ = f.post("/_emulator/faults", #"{"id":"a","action":{"type":"shutdown"}}"#)
        _ = f.post("/_emulator/faults", #"{"id":"b","action":{"type":"reset-stream"}}"#)
        let list = f.get("/_emulator/faults")
        #expect((list.json["faults"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a", "b"])
        #expect(f.get("/_emulator/faults/a").json["id"] as? String == "a")
        #expect(f.delete("/_emulator/faults/a").status == 204)
        #expect(f.delete("/_emulator/faults/a").status == 404)
        #expect(f.get("/_emulator/faults/a").status == 404)
        #expect(f.delete("/_emulator/faults").status == 204)
        #expect(f.services.faults.isEmpty)
        #expect(f.delete("/_emulator/faults").status == 204, "deleting all of none is fine")
    }
}
