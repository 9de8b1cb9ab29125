import EmulatorControl
import Foundation
import Testing
import VirtualDevices

@testable import FrontDoors

/// What FCM sends APNs for a message: the v1 and legacy mappings, pure (no listener).
@Suite struct FCMTranslationTests {
    static let apnsToken = String(repeating: "ab", count: 32)
    static let token = FCMRegistrationToken(projectNumber: 42, bundleId: "com.example.app", sandbox: true, apnsToken: apnsToken)

    static func node(_ json: String) throws -> JSONNode { try JSONDocument.parse(Array(json.utf8)).get().value }

    static func payload(_ push: RelayedPush) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])
    }

    static func v1(_ json: String) throws -> Result<RelayedPush, NotRelayed> {
        try FCMv1Translator.translate(node(json), projectNumber: 42, messageId: "0:1%ab", nowSeconds: 1_000)
    }

    static func legacy(_ json: String) throws -> Result<RelayedPush, NotRelayed> {
        try FCMLegacyTranslator.translate(node(json), target: token.text, projectNumber: 42, messageId: "0:1%ab", nowSeconds: 1_000)
    }

    @Test func aRegistrationTokenReadsBackAndAnEditedOneDoesNot() throws {
        let text = Self.token.text
        #expect(text.contains(":APA91b"))
        #expect(FCMRegistrationToken(text: text) == Self.token)
        var edited = Array(text)
        edited[edited.count - 2] = edited[edited.count - 2] == "A" ? "B" : "A"
        #expect(FCMRegistrationToken(text: String(edited)) == nil)
        #expect(FCMRegistrationToken(text: "not-a-token") == nil)
    }

    @Test func v1NotificationBecomesTheAlertWithFCMsDefaultsAndTheDataBesideAps() throws {
        let push = try Self.v1(#"{"token":"\#(Self.token.text)","notification":{"title":"T","body":"B"},"data":{"room":"7"}}"#).get()
        let payload = try Self.payload(push)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "T", "body": "B"])
        #expect(payload["room"] as? String == "7")
        #expect(payload["gcm.message_id"] as? String == "0:1%ab")
        #expect(push.header("apns-priority") == "10")
        #expect(push.header("apns-expiration") == String(1_000 + 30 * 86_400))
        #expect(push.header("apns-push-type") == "alert")
        #expect(push.header("apns-topic") == "com.example.app")
        #expect(push.sandbox && push.apnsToken == Self.apnsToken)
    }

    @Test func v1ApnsPayloadOverridesTheNotificationAndAnImageMakesItMutable() throws {
        let push = try Self.v1(#"""
            {"fid":"\#(Self.token.text)","notification":{"title":"T","body":"B","image":"https://x/i.png"},
             "apns":{"headers":{"apns-priority":"5","apns-collapse-id":"c"},
                     "payload":{"aps":{"alert":{"body":"override"},"thread-id":"room-1","sound":"default"},"extra":1}}}
            """#).get()
        let payload = try Self.payload(push)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "T", "body": "override"])
        #expect(aps["thread-id"] as? String == "room-1")
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(payload["fcm_options"] as? [String: String] == ["image": "https://x/i.png"])
        #expect(payload["extra"] as? Int == 1)
        #expect(push.header("apns-priority") == "5")
        #expect(push.header("apns-collapse-id") == "c")
    }

    @Test func v1RefusesWhatFCMRefuses() throws {
        func code(_ json: String) -> String? {
            do { _ = try Self.v1(json); return nil } catch let error as FCMError { return error.fcmCode?.rawValue } catch { return "?" }
        }
        let t = Self.token.text
        #expect(code(#"{"token":"\#(t)","data":{"n":12}}"#) == "INVALID_ARGUMENT")
        #expect(code(#"{"token":"\#(t)","data":{"google.x":"1"}}"#) == "INVALID_ARGUMENT")
        #expect(code(#"{"topic":"news","notification":{"title":"T"}}"#) == "INVALID_ARGUMENT")
        #expect(code(#"{"notification":{"title":"T"}}"#) == "INVALID_ARGUMENT")
        #expect(code(#"{"token":"garbage","notification":{"title":"T"}}"#) == "INVALID_ARGUMENT")
        let other = FCMRegistrationToken(projectNumber: 7, bundleId: "com.example.app", sandbox: true, apnsToken: Self.apnsToken).text
        #expect(code(#"{"token":"\#(other)","notification":{"title":"T"}}"#) == "SENDER_ID_MISMATCH")
    }

    @Test func aDataOnlyMessageWithoutContentAvailableMakesNoAPNsPush() throws {
        guard case .failure(let notRelayed) = try Self.v1(#"{"token":"\#(Self.token.text)","data":{"a":"b"}}"#) else {
            Issue.record("a data-only message was relayed")
            return
        }
        #expect(notRelayed.reason.contains("no content-available"))
        let background = try Self.v1(#"{"token":"\#(Self.token.text)","apns":{"payload":{"aps":{"content-available":1}}}}"#).get()
        #expect(background.header("apns-push-type") == "background")
        #expect(background.header("apns-priority") == "5", "Apple requires priority 5 for a background push")
        let legacy = try Self.legacy(#"{"content_available":true,"data":{"sync":"1"}}"#).get()
        #expect(legacy.header("apns-push-type") == "background" && legacy.header("apns-priority") == "5")
    }

    @Test func aLegacyChatBodySetsMutableContentSoundAndAnAbsoluteBadge() throws {
        let push = try Self.legacy(#"""
            {"to":"x","mutable_content":true,"notification":{"title":"t","body":"b","sound":"default","badge":100,"activity":"A"},
             "data":{"thread-id":"room-1"},"priority":"normal","time_to_live":60,"collapse_key":"k"}
            """#).get()
        let payload = try Self.payload(push)
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["mutable-content"] as? Int == 1)
        #expect(aps["sound"] as? String == "default")
        #expect(aps["badge"] as? Int == 100)
        #expect(aps["thread-id"] == nil)
        #expect(payload["thread-id"] as? String == "room-1")
        #expect(push.header("apns-priority") == "5")
        #expect(push.header("apns-expiration") == "1060")
        #expect(push.header("apns-collapse-id") == "k")
        #expect(push.notes.contains { $0.contains("data.thread-id") && $0.contains("not as aps.thread-id") })
        #expect(push.notes.contains { $0.contains("notification.activity") })
    }

    @Test func legacyDashedMutableContentIsIgnoredAndSaidSo() throws {
        let push = try Self.legacy(#"{"mutable-content":true,"notification":{"title":"t","body":"b"}}"#).get()
        let aps = try #require(Self.payload(push)["aps"] as? [String: Any])
        #expect(aps["mutable-content"] == nil)
        #expect(aps["sound"] == nil)
        #expect(push.notes.contains { $0.contains("mutable-content is not a field") })
    }

    @Test func legacyContentUnderApnsDeliversNothing() throws {
        guard case .failure(let notRelayed) = try Self.legacy(#"{"apns":{"payload":{"aps":{"alert":"hi"}}}}"#) else {
            Issue.record("a legacy body with only apns was relayed")
            return
        }
        #expect(notRelayed.notes.contains { $0.contains("apns is not a field") })
    }

    @Test func apnsRefusalsMapToFCMsCodes() {
        func code(_ status: Int, _ reason: String) -> String? {
            RelayAnswer(status: status, reason: reason, apnsId: nil).fcmError?.fcmCode?.rawValue
        }
        #expect(code(200, "") == nil)
        #expect(code(410, "Unregistered") == "UNREGISTERED")
        #expect(code(400, "BadDeviceToken") == "UNREGISTERED")
        #expect(code(403, "InvalidProviderToken") == "THIRD_PARTY_AUTH_ERROR")
        #expect(code(429, "TooManyRequests") == "QUOTA_EXCEEDED")
        #expect(code(503, "ServiceUnavailable") == "UNAVAILABLE")
        #expect(code(413, "PayloadTooLarge") == "INVALID_ARGUMENT")
    }
}
