import Foundation
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite("ControlAPI: /_emulator/journal")
struct ControlAPIJournalTests {
    /// Three entries: a success and two rejections on different tokens.
    static func seeded() throws -> ControlAPIFixture {
        let f = try ControlAPIFixture()
        let a = String(repeating: "aa", count: 32), b = String(repeating: "bb", count: 32)
        let entries: [(String, Int, String?, String)] = [
            (a, 200, nil, "com.example.app"), (b, 400, "BadDeviceToken", "com.example.app"),
            (a, 410, "Unregistered", "com.example.other"),
        ]
        for (token, status, reason, topic) in entries {
            f.services.journal.append(JournalEntry(
                id: 0, receivedAt: ControlAPIFixture.start, connectionId: 1, environment: .sandbox, method: "POST",
                path: "/3/device/\(token)", token: token, topic: topic, status: status, reason: reason,
                apnsId: UUID().uuidString.lowercased()))
        }
        return f
    }

    func ids(_ reply: ControlReply) -> [Int64] {
        (reply.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int64 }
    }

    @Test func listingReturnsEntriesOldestFirst() throws {
        let f = try Self.seeded()
        let reply = f.get("/_emulator/journal")
        #expect(reply.status == 200)
        #expect(ids(reply) == [1, 2, 3])
        let first = try #require((reply.json["entries"] as? [[String: Any]])?.first)
        #expect(first["path"] as? String == "/3/device/" + String(repeating: "aa", count: 32))
        #expect(first["environment"] as? String == "sandbox")
    }

    @Test func filtersCombine() throws {
        let f = try Self.seeded()
        let a = String(repeating: "AA", count: 32)
        #expect(ids(f.get("/_emulator/journal", query: [("token", a)])) == [1, 3])
        #expect(ids(f.get("/_emulator/journal", query: [("token", a), ("status", "410")])) == [3])
        #expect(ids(f.get("/_emulator/journal", query: [("reason", "BadDeviceToken")])) == [2])
        #expect(ids(f.get("/_emulator/journal", query: [("topic", "com.example.other")])) == [3])
        #expect(ids(f.get("/_emulator/journal", query: [("after", "1")])) == [2, 3])
        #expect(ids(f.get("/_emulator/journal", query: [("limit", "2")])) == [2, 3])
        let apnsId = try #require(f.services.journal.query().last?.apnsId)
        #expect(ids(f.get("/_emulator/journal", query: [("apnsId", apnsId.uppercased())])) == [3])
        #expect(ids(f.get("/_emulator/journal", query: [("token", "")])) == [1, 2, 3], "empty values are no filter")
    }

    @Test func countTakesTheSameFilters() throws {
        let f = try Self.seeded()
        #expect(f.get("/_emulator/journal/count").text == #"{"count":3}"#)
        #expect(f.get("/_emulator/journal/count", query: [("status", "200")]).json["count"] as? Int == 1)
        #expect(f.get("/_emulator/journal/count", query: [("limit", "2")]).json["count"] as? Int == 2)
    }

    @Test func badFilterValuesAre400NamingTheParameter() throws {
        let f = try Self.seeded()
        for (name, value) in [("status", "ok"), ("status", "700"), ("after", "-1"), ("limit", "x"),
                              ("reason", "baddevicetoken")] {
            let reply = f.get("/_emulator/journal", query: [(name, value)])
            #expect(reply.status == 400, "\(name)=\(value)")
            #expect(reply.field == .some(name))
            #expect(reply.error?.contains("query parameter '\(name)'") == true)
        }
        #expect(f.get("/_emulator/journal", query: [("reason", "BadEnvironmentKeyInToken")]).status == 200,
                "the undocumented spelling a policy can send is a valid filter")
    }

    @Test func clearingEmptiesTheJournalButIdsKeepIncreasing() throws {
        let f = try Self.seeded()
        #expect(f.delete("/_emulator/journal").status == 204)
        #expect(ids(f.get("/_emulator/journal")).isEmpty)
        f.services.journal.append(JournalEntry(id: 0, receivedAt: 0, connectionId: 1, environment: .sandbox,
                                               method: "POST", path: "/3/device/x", status: 200, apnsId: "x"))
        #expect(ids(f.get("/_emulator/journal")) == [4])
    }

    @Test func settingsCanBeReadAndChanged() throws {
        let f = try Self.seeded()
        let read = f.get("/_emulator/journal/settings")
        #expect(read.json["enabled"] as? Bool == true)
        #expect(read.json["size"] as? Int == 3)
        let capped = f.put("/_emulator/journal/settings", #"{"capacity":2}"#)
        #expect(capped.status == 200)
        #expect(capped.json["capacity"] as? Int == 2)
        #expect(capped.json["size"] as? Int == 2)
        #expect(capped.json["dropped"] as? Int == 1)
        #expect(capped.json["enabled"] as? Bool == true, "omitted fields stay unchanged")
        let off = f.put("/_emulator/journal/settings", #"{"enabled":false}"#)
        #expect(off.json["enabled"] as? Bool == false)
        #expect(!f.services.journal.isEnabled)
    }

    @Test func badSettingsChangeNothing() throws {
        let f = try Self.seeded()
        let before = f.services.journal.settings
        for (body, field) in [(#"{"enabled":"no"}"#, "enabled"), (#"{"enabled":1}"#, "enabled"),
                              (#"{"capacity":0}"#, "capacity"), (#"{"capacity":2,"enabled":false,"size":3}"#, "size"),
                              (#"{"capacity":2.5,"enabled":false}"#, "capacity")] {
            let reply = f.put("/_emulator/journal/settings", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.field == .some(field), "\(body)")
        }
        #expect(f.services.journal.settings == before)
    }
}
