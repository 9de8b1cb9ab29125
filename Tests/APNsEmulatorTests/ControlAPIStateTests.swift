import Foundation
import StateStore
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite("ControlAPI: reset, state export and import, clock")
struct ControlAPIStateTests {
    /// A fixture holding a key, a token, a fault and a journal entry.
    static func populated() throws -> ControlAPIFixture {
        let f = try ControlAPIFixture()
        f.addKey()
        f.addToken()
        _ = f.post("/_emulator/faults", #"{"id":"f1","action":{"type":"delay","delayMs":10}}"#)
        f.services.journal.append(JournalEntry(id: 0, receivedAt: 0, connectionId: 1, environment: .sandbox,
                                               method: "POST", path: "/3/device/x", status: 200, apnsId: "x"))
        return f
    }

    @Test func resetForgetsEverything() throws {
        let f = try Self.populated()
        #expect(f.post("/_emulator/reset").status == 204)
        #expect(f.services.exportState() == EmulatorState())
        #expect(f.services.journal.query().isEmpty)
    }

    @Test func resetRefusesBodyFields() throws {
        let f = try Self.populated()
        let reply = f.post("/_emulator/reset", #"{"keepKeys":true}"#)
        #expect(reply.status == 400)
        #expect(reply.field == "keepKeys")
        #expect(!f.services.keys.all().isEmpty)
        #expect(f.post("/_emulator/reset", "{}").status == 204)
    }

    @Test func exportedStateImportsIntoAnotherEmulator() throws {
        let source = try Self.populated()
        let exported = source.get("/_emulator/state")
        #expect(exported.status == 200)
        #expect(exported.json["version"] as? Int == EmulatorState.currentVersion)
        let target = try ControlAPIFixture()
        let imported = target.put("/_emulator/state", exported.text)
        #expect(imported.status == 204, "\(imported.text)")
        #expect(target.services.exportState() == source.services.exportState())
        #expect(target.services.keys.lookup("KEY0000001") != nil)
    }

    @Test func importReplacesRatherThanMerges() throws {
        let f = try Self.populated()
        let empty = #"{"version":1,"keys":[],"tokens":[],"faults":[]}"#
        #expect(f.put("/_emulator/state", empty).status == 204)
        #expect(f.services.exportState() == EmulatorState())
    }

    /// The snapshot of `populated()`, edited by `change`, as JSON text.
    static func snapshot(_ f: ControlAPIFixture, _ change: (inout [String: Any]) -> Void) throws -> String {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(f.get("/_emulator/state").response.body))
                                  as? [String: Any])
        change(&object)
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func editFirst(_ list: String, in object: inout [String: Any], _ edit: (inout [String: Any]) -> Void) {
        var items = object[list] as! [[String: Any]]
        edit(&items[0])
        object[list] = items
    }

    @Test func badSnapshotsAre400NamingTheFieldAndChangeNothing() throws {
        let f = try Self.populated()
        let before = f.services.exportState()
        let edits: [(String, (inout [String: Any]) -> Void)] = [
            ("version", { $0["version"] = 99 }),
            ("keys[0].teamid", { o in Self.editFirst("keys", in: &o) { $0["teamid"] = "X" } }),
            ("keys[0].keyId", { o in Self.editFirst("keys", in: &o) { $0["keyId"] = "short" } }),
            ("keys[0].publicKeyPem", { o in Self.editFirst("keys", in: &o) { $0["publicKeyPem"] = "x" } }),
            ("keys[0].kind", { o in Self.editFirst("keys", in: &o) { $0["kind"] = "legacy" } }),
            ("keys[0].environment", { o in Self.editFirst("keys", in: &o) { $0["environment"] = "sandbox" } }),
            ("tokens[0].token", { o in Self.editFirst("tokens", in: &o) { $0["token"] = "XYZ" } }),
            ("tokens[0].bundleId", { o in Self.editFirst("tokens", in: &o) { $0.removeValue(forKey: "bundleId") } }),
            ("tokens[0].createdAt", { o in Self.editFirst("tokens", in: &o) { $0["createdAt"] = "now" } }),
            ("faults[0].action.reason", { o in Self.editFirst("faults", in: &o) { $0["action"] = ["type": "reason", "reason": "Nope"] } }),
            ("faults[0].action.type", { o in Self.editFirst("faults", in: &o) { $0["action"] = ["type": "explode"] } }),
            ("faults[0].action.reason", { o in Self.editFirst("faults", in: &o) { $0["action"] = ["type": "delay", "delayMs": 1, "reason": "Shutdown"] } }),
            ("tokens[1].token", { o in o["tokens"] = (o["tokens"] as! [Any]) + (o["tokens"] as! [Any]) }),
            ("extra", { $0["extra"] = true }),
        ]
        for (field, edit) in edits {
            let reply = f.put("/_emulator/state", try Self.snapshot(f, edit))
            #expect(reply.status == 400, "\(field): \(reply.text)")
            #expect(reply.field == .some(field), "\(field): \(reply.text)")
        }
        #expect(f.put("/_emulator/state", "{").status == 400)
        #expect(f.put("/_emulator/state", "[]").status == 400)
        #expect(f.put("/_emulator/state", "").status == 400)
        #expect(f.services.exportState() == before)
    }

    @Test func unknownSnapshotFieldListsTheDocumentedOnes() throws {
        let f = try Self.populated()
        let body = try Self.snapshot(f) { o in Self.editFirst("keys", in: &o) { $0["teamid"] = "X" } }
        let reply = f.put("/_emulator/state", body)
        let expected = "unknown field 'keys[0].teamid' (expected one of: createdAt, environment, keyId,"
        #expect(reply.error?.hasPrefix(expected) == true,
                "\(reply.text)")
    }

    @Test func nullOptionalFieldsInASnapshotAreFine() throws {
        let f = try Self.populated()
        let body = try Self.snapshot(f) { o in Self.editFirst("tokens", in: &o) { $0["unregisteredAt"] = NSNull() } }
        #expect(f.put("/_emulator/state", body).status == 204)
    }

    // MARK: Clock

    @Test func manualClockCanBeReadAndAdvanced() throws {
        let f = try ControlAPIFixture()
        let read = f.get("/_emulator/clock")
        #expect(read.json["now"] as? Int64 == ControlAPIFixture.start)
        #expect(read.json["controllable"] as? Bool == true)
        let ms = f.post("/_emulator/clock/advance", #"{"ms":1500}"#)
        #expect(ms.status == 200)
        #expect(ms.text == #"{"now":\#(ControlAPIFixture.start + 1500)}"#)
        let seconds = f.post("/_emulator/clock/advance", #"{"seconds":2.5}"#)
        #expect(seconds.json["now"] as? Int64 == ControlAPIFixture.start + 4000)
        #expect(f.services.clock.now() == ControlAPIFixture.start + 4000)
    }

    @Test func advancingNeedsExactlyOneNonNegativeAmount() throws {
        let f = try ControlAPIFixture()
        for (body, field) in [("{}", "ms"), (#"{"ms":1,"seconds":1}"#, "seconds"), (#"{"ms":-1}"#, "ms"),
                              (#"{"seconds":-0.5}"#, "seconds"), (#"{"ms":"5"}"#, "ms"), (#"{"minutes":1}"#, "minutes"),
                              (#"{"ms":1e300}"#, "ms")] {
            let reply = f.post("/_emulator/clock/advance", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.field == .some(field), "\(body): \(reply.text)")
        }
        #expect(f.services.clock.now() == ControlAPIFixture.start)
    }

    @Test func frozenClockResumesFromWhereItStandsAndFreezesAgain() throws {
        let f = try ControlAPIFixture()
        #expect(f.get("/_emulator/clock").json["frozen"] as? Bool == true)
        let resumed = f.post("/_emulator/clock/resume")
        #expect(resumed.status == 200)
        #expect(resumed.json["frozen"] as? Bool == false)
        // Running from the fixed 2026-01-01 start, not jumping to the real now.
        let running = f.services.clock.now()
        #expect(running >= ControlAPIFixture.start && running < ControlAPIFixture.start + 60_000)
        #expect(f.post("/_emulator/clock/advance", #"{"seconds":3600}"#).status == 200)
        let frozen = f.post("/_emulator/clock/freeze")
        let at = try #require(frozen.json["now"] as? Int64)
        #expect(at >= ControlAPIFixture.start + 3_600_000)
        Thread.sleep(forTimeInterval: 0.02)
        #expect(f.services.clock.now() == at, "a running clock would have moved in 20 ms")
        #expect(f.post("/_emulator/clock/freeze", #"{"x":1}"#).status == 400)
    }

    @Test func realTimeClockIsNotControllableAndAdvancingIs409() throws {
        let f = try ControlAPIFixture(clock: SystemClock())
        #expect(f.get("/_emulator/clock").json["controllable"] as? Bool == false)
        let reply = f.post("/_emulator/clock/advance", #"{"ms":1000}"#)
        #expect(reply.status == 409)
        #expect(reply.error?.contains("real time") == true)
        #expect(f.post("/_emulator/clock/freeze").status == 409)
    }
}
