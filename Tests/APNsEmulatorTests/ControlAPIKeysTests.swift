import Foundation
import OpenSSLSupport
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

@Suite("ControlAPI: /_emulator/keys")
struct ControlAPIKeysTests {
    @Test func creatingAKeyWithoutPEMGeneratesAPairAndShowsThePrivateKeyOnce() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000001"}"#)
        #expect(reply.status == 201)
        #expect(reply.header("location") == "/_emulator/keys/KEY0000001")
        let json = reply.json
        #expect(json["keyId"] as? String == "KEY0000001")
        #expect(json["teamId"] as? String == "TEAM000001")
        #expect(json["kind"] as? String == "team")
        #expect(json["createdAt"] as? Int64 == ControlAPIFixture.start)
        let privatePEM = try #require(json["privateKeyPem"] as? String)
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        // The generated private key matches the stored public key, which is all that is stored.
        let privateKey = try PrivateKey(pem: privatePEM)
        let stored = try #require(f.services.keys.lookup("KEY0000001"))
        #expect(stored.record.publicKeyPem == privateKey.publicKeyPEM)
        #expect(f.get("/_emulator/keys/KEY0000001").json["privateKeyPem"] == nil)
        #expect(!f.get("/_emulator/state").text.contains("PRIVATE KEY"))
    }

    @Test func creatingAKeyWithAPublicKeyPEMStoresItAndReturnsNoPrivateKey() throws {
        let f = try ControlAPIFixture()
        let pem = try ControlAPIFixture.publicKeyPEM()
        let body = try JSONSerialization.data(withJSONObject: [
            "teamId": "TEAM000001", "keyId": "KEY0000002", "kind": "team-scoped", "environment": "sandbox",
            "publicKeyPem": pem,
        ])
        let reply = f.post("/_emulator/keys", String(decoding: body, as: UTF8.self))
        #expect(reply.status == 201)
        #expect(reply.json["privateKeyPem"] == nil)
        #expect(reply.json["environment"] as? String == "sandbox")
        #expect(f.services.keys.lookup("KEY0000002")?.record.publicKeyPem == pem)
    }

    @Test func topicKeyNeedsTopicsAndEnvironment() throws {
        let f = try ControlAPIFixture()
        let ok = f.post("/_emulator/keys", #"""
            {"teamId":"TEAM000001","keyId":"KEY0000003","kind":"topic","environment":"production",
             "topics":["com.example.app","com.example.other"]}
            """#)
        #expect(ok.status == 201)
        #expect(ok.json["topics"] as? [String] == ["com.example.app", "com.example.other"])

        let noTopics = f.post("/_emulator/keys",
                              #"{"teamId":"TEAM000001","keyId":"KEY0000004","kind":"topic","environment":"sandbox"}"#)
        #expect(noTopics.status == 400)
        #expect(noTopics.field == "topics")
        let emptyTopics = f.post("/_emulator/keys", #"""
            {"teamId":"TEAM000001","keyId":"KEY0000004","kind":"topic","environment":"sandbox","topics":[]}
            """#)
        #expect(emptyTopics.field == "topics")
        let noEnvironment = f.post("/_emulator/keys",
                                   #"{"teamId":"TEAM000001","keyId":"KEY0000004","kind":"topic","topics":["a.b"]}"#)
        #expect(noEnvironment.status == 400)
        #expect(noEnvironment.field == "environment")
        #expect(noEnvironment.error?.contains("required for kind 'topic'") == true)
    }

    @Test func moreThan400TopicsAreRefused() throws {
        let f = try ControlAPIFixture()
        let topics = (0...400).map { "\"com.example.app\($0)\"" }.joined(separator: ",")
        let reply = f.post("/_emulator/keys", #"""
            {"teamId":"TEAM000001","keyId":"KEY0000005","kind":"topic","environment":"sandbox","topics":[\#(topics)]}
            """#)
        #expect(reply.status == 400)
        #expect(reply.field == "topics")
        #expect(reply.error?.contains("at most 400") == true)
    }

    @Test func teamKeyRefusesAnEnvironmentAndDeclaresItsTeamsAppsWithTopics() throws {
        let f = try ControlAPIFixture()
        let withEnvironment = f.post("/_emulator/keys",
                                     #"{"teamId":"TEAM000001","keyId":"KEY0000006","environment":"sandbox"}"#)
        #expect(withEnvironment.status == 400)
        #expect(withEnvironment.field == "environment")
        let withTopics = f.post("/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000006","topics":["a.b"]}"#)
        #expect(withTopics.status == 201, "\(withTopics.text)")
        #expect(f.services.keys.teamsOwning("a.b") == ["TEAM000001"])
        let twice = f.post("/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000007","topics":["a.b","a.b"]}"#)
        #expect(twice.field == "topics[1]")
        let scopedNoEnvironment = f.post("/_emulator/keys",
                                         #"{"teamId":"TEAM000001","keyId":"KEY0000006","kind":"team-scoped"}"#)
        #expect(scopedNoEnvironment.field == "environment")
    }

    @Test func identifiersMustBeTenUppercaseAlphanumerics() throws {
        let f = try ControlAPIFixture()
        for (body, field) in [
            (#"{"teamId":"TEAM00001","keyId":"KEY0000001"}"#, "teamId"),
            (#"{"teamId":"TEAM000001","keyId":"key0000001"}"#, "keyId"),
            (#"{"teamId":"TEAM000001","keyId":"KEY-000001"}"#, "keyId"),
            (#"{"teamId":"TEAM000001","keyId":"KEY0000001","relatedKeyId":"x"}"#, "relatedKeyId"),
        ] {
            let reply = f.post("/_emulator/keys", body)
            #expect(reply.status == 400, "\(body)")
            #expect(reply.field == .some(field), "\(body)")
            #expect(reply.error?.contains("10 characters A-Z or 0-9") == true)
        }
    }

    @Test func wrongTypesAndValuesNameTheFieldAndWhatWasExpected() throws {
        let f = try ControlAPIFixture()
        let kind = f.post("/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000001","kind":"legacy"}"#)
        #expect(kind.field == "kind")
        #expect(kind.error == #"field 'kind' must be one of "team", "team-scoped", "topic" (got "legacy")"#)
        let number = f.post("/_emulator/keys", #"{"teamId":1234567890,"keyId":"KEY0000001"}"#)
        #expect(number.field == "teamId")
        #expect(number.error == "field 'teamId' must be a string (got 1234567890)")
        let topicType = f.post("/_emulator/keys", #"""
            {"teamId":"TEAM000001","keyId":"KEY0000001","kind":"topic","environment":"sandbox","topics":["a.b",7]}
            """#)
        #expect(topicType.field == "topics[1]")
        let missing = f.post("/_emulator/keys", #"{"teamId":"TEAM000001"}"#)
        #expect(missing.field == "keyId")
        #expect(missing.error == "missing required field 'keyId' (a string)")
    }

    @Test func badPublicKeysAreRefusedWithAHint() throws {
        let f = try ControlAPIFixture()
        func create(_ pem: String) throws -> ControlReply {
            let body = try JSONSerialization.data(withJSONObject: [
                "teamId": "TEAM000001", "keyId": "KEY0000001", "publicKeyPem": pem])
            return f.post("/_emulator/keys", String(decoding: body, as: UTF8.self))
        }
        let garbage = try create("not a pem")
        #expect(garbage.status == 400)
        #expect(garbage.field == "publicKeyPem")
        let privateKey = try create(try PrivateKey.generateP256().pkcs8PEM)
        #expect(privateKey.field == "publicKeyPem")
        #expect(privateKey.error?.contains("private key") == true)
    }

    @Test func creatingAnExistingKeyIdReplacesItWith200() throws {
        let f = try ControlAPIFixture()
        #expect(f.addKey(teamId: "TEAM000001").status == 201)
        let again = f.addKey(teamId: "TEAM000002")
        #expect(again.status == 200)
        #expect(f.services.keys.lookup("KEY0000001")?.record.teamId == "TEAM000002")
    }

    @Test func listGetAndDeleteKeys() throws {
        let f = try ControlAPIFixture()
        f.addKey(keyId: "KEY0000002")
        f.addKey(keyId: "KEY0000001")
        let list = f.get("/_emulator/keys")
        #expect(list.status == 200)
        let keys = try #require(list.json["keys"] as? [[String: Any]])
        #expect(keys.compactMap { $0["keyId"] as? String } == ["KEY0000001", "KEY0000002"])
        #expect(keys.allSatisfy { $0["privateKeyPem"] == nil })

        #expect(f.get("/_emulator/keys/KEY0000001").json["keyId"] as? String == "KEY0000001")
        #expect(f.delete("/_emulator/keys/KEY0000001").status == 204)
        #expect(f.get("/_emulator/keys/KEY0000001").status == 404)
        #expect(f.delete("/_emulator/keys/KEY0000001").status == 404)
        #expect(f.get("/_emulator/keys/KEY0000001").error == "no key with id 'KEY0000001'")
    }

    @Test func refusedKeyRequestChangesNothing() throws {
        let f = try ControlAPIFixture()
        f.addKey()
        let before = f.services.exportState()
        for body in [
            #"{"teamId":"TEAM000001","keyId":"KEY0000001","kind":"topic","environment":"sandbox"}"#,
            #"{"teamId":"TEAM000009","keyId":"KEY0000001","extra":true}"#,
            #"{"teamId":"TEAM000009","keyId":"KEY0000001","publicKeyPem":"x"}"#,
        ] {
            #expect(f.post("/_emulator/keys", body).status == 400)
        }
        #expect(f.services.exportState() == before)
    }
}
