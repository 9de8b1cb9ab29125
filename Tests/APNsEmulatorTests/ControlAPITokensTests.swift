import Foundation
import StateStore
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite("ControlAPI: /_emulator/tokens")
struct ControlAPITokensTests {
    @Test func issuingATokenReturnsTokenBundleIdAndEnvironment() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/tokens", #"{"bundleId":"com.example.app","environment":"production"}"#)
        #expect(reply.status == 201)
        let token = try #require(reply.json["token"] as? String)
        #expect(token.count == 64)
        #expect(token == token.lowercased())
        #expect(reply.json["bundleId"] as? String == "com.example.app")
        #expect(reply.json["environment"] as? String == "production")
        #expect(reply.json["kind"] as? String == "app")
        #expect(reply.header("location") == "/_emulator/tokens/\(token)")
        #expect(f.services.tokens.lookup(token)?.bundleId == "com.example.app")
    }

    @Test func aBatchIssuesDistinctRegisteredTokensOfOneApp() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/tokens:batch",
                           #"{"count":250,"bundleId":"com.example.app","environment":"production"}"#)
        #expect(reply.status == 201, "\(reply.json)")
        let tokens = try #require(reply.json["tokens"] as? [String])
        #expect(tokens.count == 250 && Set(tokens).count == 250)
        for token in tokens {
            #expect(f.services.tokens.lookup(token)?.bundleId == "com.example.app")
            #expect(f.services.tokens.lookup(token)?.environment == .production)
        }
        let tooMany = f.post("/_emulator/tokens:batch", #"{"count":100001,"bundleId":"com.example.app","environment":"sandbox"}"#)
        #expect(tooMany.status == 400)
        #expect(tooMany.json["error"] as? String == "field 'count' must be an integer from 1 to 100000 (got 100001)")
        let noApp = f.post("/_emulator/tokens:batch", #"{"count":1,"environment":"sandbox"}"#)
        #expect(noApp.status == 400)
        #expect((noApp.json["error"] as? String)?.contains("bundleId") == true, "\(noApp.json)")
    }

    @Test func liveActivityTokensAreLonger() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/tokens",
                           #"{"bundleId":"com.example.app","environment":"sandbox","kind":"live-activity"}"#)
        #expect(reply.status == 201)
        #expect((reply.json["token"] as? String)?.count == DeviceTokenKind.liveActivity.byteLength * 2)
    }

    @Test func registeringAGivenTokenStoresItLowercase() throws {
        let f = try ControlAPIFixture()
        let upper = String(repeating: "AB", count: 32)
        let reply = f.addToken(upper)
        #expect(reply.status == 201)
        #expect(reply.json["token"] as? String == upper.lowercased())
        #expect(f.addToken(upper).status == 200, "registering it again replaces it")
        #expect(f.get("/_emulator/tokens/\(upper)").status == 200, "lookups accept either case")
    }

    @Test func badTokenBodiesAreRefusedNamingTheField() throws {
        let f = try ControlAPIFixture()
        for (body, field) in [
            (#"{"environment":"sandbox"}"#, "bundleId"),
            (#"{"bundleId":"com.example.app"}"#, "environment"),
            (#"{"bundleId":"com.example.app","environment":"staging"}"#, "environment"),
            (#"{"bundleId":"com example","environment":"sandbox"}"#, "bundleId"),
            (#"{"bundleId":"com.example.app","environment":"sandbox","kind":"voip"}"#, "kind"),
            (#"{"bundleId":"com.example.app","environment":"sandbox","token":"xyz"}"#, "token"),
            (#"{"bundleId":"com.example.app","environment":"sandbox","token":"abc"}"#, "token"),
            (#"{"bundleId":"com.example.app","environment":"sandbox","token":"abcd"}"#, "token"),
            (#"{"bundleId":"com.example.app","environment":"sandbox","deviceId":"d1"}"#, "deviceId"),
        ] {
            let reply = f.post("/_emulator/tokens", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.field == .some(field), "\(body): \(reply.text)")
        }
        #expect(f.services.tokens.all().isEmpty)
    }

    @Test func listingFiltersByBundleIdAndEnvironment() throws {
        let f = try ControlAPIFixture()
        f.addToken(String(repeating: "01", count: 32), bundleId: "com.example.a")
        f.addToken(String(repeating: "02", count: 32), bundleId: "com.example.b")
        _ = f.post("/_emulator/tokens", #"{"bundleId":"com.example.a","environment":"production"}"#)
        func count(_ query: [(name: String, value: String)]) -> Int? {
            (f.get("/_emulator/tokens", query: query).json["tokens"] as? [Any])?.count
        }
        #expect(count([]) == 3)
        #expect(count([("bundleId", "com.example.a")]) == 2)
        #expect(count([("bundleId", "com.example.a"), ("environment", "sandbox")]) == 1)
        #expect(count([("environment", "production")]) == 1)
        let bad = f.get("/_emulator/tokens", query: [("environment", "prod")])
        #expect(bad.status == 400)
        #expect(bad.field == "environment")
    }

    @Test func getAndDeleteAToken() throws {
        let f = try ControlAPIFixture()
        f.addToken()
        let token = ControlAPIFixture.token
        #expect(f.get("/_emulator/tokens/\(token)").json["token"] as? String == token)
        #expect(f.delete("/_emulator/tokens/\(token)").status == 204)
        #expect(f.get("/_emulator/tokens/\(token)").status == 404)
        #expect(f.delete("/_emulator/tokens/\(token)").status == 404)
    }

    @Test func unregisteringDefaultsToTheClocksNow() throws {
        let f = try ControlAPIFixture()
        f.addToken()
        f.manualClock?.advance(byMillis: 5000)
        let reply = f.post("/_emulator/tokens/\(ControlAPIFixture.token)/unregister")
        #expect(reply.status == 200)
        #expect(reply.json["token"] as? String == ControlAPIFixture.token)
        #expect(reply.json["unregisteredAt"] as? Int64 == ControlAPIFixture.start + 5000)
        #expect(f.services.tokens.lookup(ControlAPIFixture.token)?.unregisteredAt == ControlAPIFixture.start + 5000)
    }

    @Test func unregisteringAndExpiringTakeAnExplicitTime() throws {
        let f = try ControlAPIFixture()
        f.addToken()
        let unregister = f.post("/_emulator/tokens/\(ControlAPIFixture.token)/unregister", #"{"at":1700000000000}"#)
        #expect(unregister.json["unregisteredAt"] as? Int64 == 1_700_000_000_000)
        let expire = f.post("/_emulator/tokens/\(ControlAPIFixture.token)/expire", #"{"at":1700000000001}"#)
        #expect(expire.status == 200)
        #expect(expire.json["expiredAt"] as? Int64 == 1_700_000_000_001)
    }

    @Test func endOfLifeRefusesBadTimesAndUnknownTokens() throws {
        let f = try ControlAPIFixture()
        f.addToken()
        let path = "/_emulator/tokens/\(ControlAPIFixture.token)"
        let before = f.services.exportState()
        #expect(f.post(path + "/unregister", #"{"at":"yesterday"}"#).field == "at")
        #expect(f.post(path + "/unregister", #"{"at":-1}"#).field == "at")
        #expect(f.post(path + "/unregister", #"{"at":1.5}"#).field == "at")
        #expect(f.post(path + "/expire", #"{"when":1}"#).field == "when")
        #expect(f.services.exportState() == before)
        #expect(f.post("/_emulator/tokens/\(String(repeating: "cd", count: 32))/expire").status == 404)
    }
}
