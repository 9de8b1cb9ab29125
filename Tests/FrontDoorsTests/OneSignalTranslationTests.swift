import EmulatorControl
import Foundation
import Testing
import VirtualDevices

@testable import FrontDoors

/// What OneSignal sends APNs for a create-notification body, per subscription (no listener).
@Suite struct OneSignalTranslationTests {
    static let subscription = OneSignalSubscription(id: "s1", appId: "a", apnsToken: String(repeating: "cd", count: 32),
                                                    environment: "production", externalId: "user-1", badgeCount: 4)

    static func push(_ json: String, subscription: OneSignalSubscription = subscription) throws
        -> (push: RelayedPush, payload: [String: Any], aps: [String: Any], badge: Int64?)
    {
        let body = try JSONDocument.parse(Array(json.utf8)).get().value
        let plan = try OneSignalTranslator.plan(body, notificationId: "n-1", nowSeconds: 1_000)
        // The badge OneSignal keeps for the subscription, as OneSignalApps.nextBadge keeps it.
        let (push, badge) = OneSignalTranslator.push(plan, to: subscription, bundleId: "com.example.app") { type, count in
            max(0, type == "SetTo" ? count : subscription.badgeCount + count)
        }
        let payload = try #require(JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any])
        return (push, payload, try #require(payload["aps"] as? [String: Any]), badge)
    }

    @Test func anOlderClientsBodyGroupsByThreadAndIncreasesTheBadgeOneSignalKeeps() throws {
        let r = try Self.push(#"""
            {"app_id":"a","include_external_user_ids":["user-1"],"headings":{"en":"제목"},"contents":{"en":"내용"},
             "url":"myapp://room/7","ios_badgeType":"Increase","ios_badgeCount":"1","thread_id":"room-7"}
            """#)
        #expect(r.aps["alert"] as? [String: String] == ["title": "제목", "body": "내용"])
        #expect(r.aps["thread-id"] as? String == "room-7")
        #expect(r.aps["badge"] as? Int == 5)
        #expect(r.badge == 5)
        #expect(r.aps["mutable-content"] as? Int == 1)
        #expect(r.aps["sound"] as? String == "default")
        let custom = try #require(r.payload["custom"] as? [String: Any])
        #expect(custom["u"] as? String == "myapp://room/7")
        #expect(custom["i"] as? String == "n-1")
        #expect(r.push.header("apns-push-type") == "alert")
        #expect(r.push.header("apns-priority") == "10")
        #expect(r.push.header("apns-expiration") == String(1_000 + 259_200))
        #expect(r.push.header("apns-topic") == "com.example.app")
    }

    @Test func setToSetsTheBadgeAndNoneLeavesIt() throws {
        #expect(try Self.push(#"{"contents":{"en":"x"},"ios_badgeType":"SetTo","ios_badgeCount":100}"#).aps["badge"] as? Int == 100)
        let none = try Self.push(#"{"contents":{"en":"x"},"ios_badgeType":"None","ios_badgeCount":3}"#)
        #expect(none.aps["badge"] == nil && none.badge == nil)
        #expect(try Self.push(#"{"contents":{"en":"x"},"ios_badgeType":"Increase","ios_badgeCount":-9}"#).badge == 0)
    }

    @Test func groupingSummaryDataAttachmentsAndSoundMapToTheirKeys() throws {
        let r = try Self.push(#"""
            {"contents":{"en":"x"},"summary_arg":"John","summary_arg_count":2,"data":{"roomId":"9"},
             "ios_attachments":{"id1":"https://x/a.jpg"},"ios_sound":"ping.wav","ios_category":"chat","collapse_id":"c1",
             "ios_interruption_level":"time_sensitive","ttl":60,"priority":5}
            """#)
        let alert = try #require(r.aps["alert"] as? [String: Any])
        #expect(alert["summary-arg"] as? String == "John")
        #expect(alert["summary-arg-count"] as? Int == 2)
        #expect((r.payload["custom"] as? [String: Any])?["a"] as? [String: String] == ["roomId": "9"])
        #expect(r.payload["att"] as? [String: String] == ["id1": "https://x/a.jpg"])
        #expect(r.aps["sound"] as? String == "ping.wav")
        #expect(r.aps["category"] as? String == "chat")
        #expect(r.aps["interruption-level"] as? String == "time-sensitive")
        #expect(r.push.header("apns-collapse-id") == "c1")
        #expect(r.push.header("apns-expiration") == "1060")
        #expect(r.push.header("apns-priority") == "5")
        let silent = try Self.push(#"{"contents":{"en":"x"},"ios_sound":null}"#)
        #expect(silent.aps["sound"] == nil)
    }

    @Test func contentAvailableWithoutContentsIsABackgroundPush() throws {
        let r = try Self.push(#"{"content_available":true,"data":{"sync":"1"}}"#)
        #expect(r.aps["content-available"] as? Int == 1)
        #expect(r.aps["alert"] == nil && r.aps["mutable-content"] == nil)
        #expect(r.push.header("apns-push-type") == "background")
        #expect(r.push.header("apns-priority") == "5")
    }

    @Test func aBodyWithoutContentsOrContentAvailableIsRefused() throws {
        let body = try JSONDocument.parse(Array(#"{"headings":{"en":"t"}}"#.utf8)).get().value
        #expect(throws: OneSignalError.self) { try OneSignalTranslator.plan(body, notificationId: "n", nowSeconds: 0) }
    }
}
