import Foundation
import Testing

@testable import VirtualDevices

@Suite("ApnsNotification mapping from the payload")
struct ApnsNotificationTests {
    static func content(_ json: String) -> PushContent { PushContent(payload: Array(json.utf8)) }

    @Test func alertDictionaryFieldsMapOneToOne() {
        let c = Self.content(#"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L.png"},"badge":7,"#
            + #""sound":"s.caf","category":"CAT","thread-id":"room-1","target-content-id":"tc","relevance-score":0.5},"k":1}"#)
        let n = ApnsNotification(identifier: "id", content: c, platform: .iOS, level: .active, source: .delegate)
        #expect((n.title, n.subtitle, n.body) == ("T", "S", "B"))
        #expect(n.badge == 7)
        #expect(n.sound == "", "no public API gives the sound to the delegate")
        #expect(n.categoryIdentifier == "CAT")
        #expect(n.threadIdentifier == "room-1")
        #expect(n.launchImageName == "L.png")
        #expect(n.targetContentIdentifier == "tc")
        #expect(n.relevanceScore == 0.5)
        #expect(n.userInfoJson.contains(#""k":1"#))
    }

    /// A record read back from the JSON the control API writes is equal to the one written, whatever mapping
    /// built it (the fields are computed from the content, so the decoded one holds them literally).
    @Test func jsonRoundTripKeepsEveryField() throws {
        let c = Self.content(#"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B","launch-image":"L.png"},"badge":7,"#
            + #""sound":"s.caf","category":"CAT","thread-id":"room-1","target-content-id":"tc","relevance-score":0.5}}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // Foundation on Linux does not keep key order otherwise
        for source in [ApnsNotification.Source.delegate, .coldStart] {
            let n = ApnsNotification(identifier: "id", content: c, platform: .iOS, level: .timeSensitive, source: source)
            let data = try encoder.encode(n)
            let back = try JSONDecoder().decode(ApnsNotification.self, from: data)
            #expect(back == n)
            #expect(try encoder.encode(back) == data)
        }
        let json = try #require(String(data: try JSONEncoder().encode(ApnsNotification.empty), encoding: .utf8))
        for key in ["identifier", "title", "subtitle", "body", "badge", "sound", "categoryIdentifier",
                    "threadIdentifier", "launchImageName", "targetContentIdentifier", "interruptionLevel",
                    "relevanceScore", "userInfoJson", "isRemote"] {
            #expect(json.contains("\"\(key)\""), "\(key) missing from \(json)")
        }
    }

    /// Setting a field changes that field only: the others read as before, whatever mapping built the record.
    @Test func settingAFieldKeepsTheOthers() {
        let c = Self.content(#"{"aps":{"alert":{"title":"T","body":"B","launch-image":"L.png"},"sound":"s.caf","thread-id":"t"}}"#)
        var n = ApnsNotification(identifier: "i", content: c, platform: .iOS, level: .active, source: .delegate)
        n.threadIdentifier = "other"
        #expect(n.threadIdentifier == "other")
        #expect((n.title, n.body, n.launchImageName, n.sound) == ("T", "B", "L.png", ""))
        var cold = ApnsNotification(identifier: "i", content: c, platform: .iOS, level: .active, source: .coldStart)
        cold.badge = 3
        #expect((cold.badge, cold.sound, cold.launchImageName) == (3, "s.caf", ""))
    }

    @Test func coldStartKeepsTheSoundAndDropsWhatOnlyTheOSComputes() {
        let c = Self.content(#"{"aps":{"alert":{"body":"B","launch-image":"L.png"},"sound":"s.caf","relevance-score":0.5}}"#)
        let n = ApnsNotification(identifier: "i", content: c, platform: .iOS, level: .critical, source: .coldStart)
        #expect(n.sound == "s.caf")
        #expect(n.launchImageName == "")
        #expect(n.relevanceScore == 0)
        #expect(n.interruptionLevel == .unspecified)
    }

    @Test func macOSHasNoLaunchImage() {
        let c = Self.content(#"{"aps":{"alert":{"body":"B","launch-image":"L.png"}}}"#)
        #expect(ApnsNotification(identifier: "i", content: c, platform: .macOS, level: .active, source: .delegate)
            .launchImageName == "")
    }

    @Test func alertStringIsTheBodyAndAbsentBadgeIsZero() {
        let n = ApnsNotification(identifier: "i", content: Self.content(#"{"aps":{"alert":"hello"}}"#), platform: .iOS,
                                 level: .active, source: .delegate)
        #expect(n.body == "hello")
        #expect(n.badge == 0)
    }

    @Test func timeSensitiveWithoutEntitlementIsPassive() {
        #expect(VirtualApp.effectiveLevel(.timeSensitive, Entitlements()) == .passive)
        #expect(VirtualApp.effectiveLevel(.timeSensitive, Entitlements(timeSensitive: true)) == .timeSensitive)
        #expect(VirtualApp.effectiveLevel(.critical, Entitlements()) == .active)
        #expect(VirtualApp.effectiveLevel(.critical, Entitlements(criticalAlerts: true)) == .critical)
        #expect(VirtualApp.effectiveLevel(nil, Entitlements()) == .active)
    }

    @Test func contentAvailableAndMutableContentAreRead() {
        let c = Self.content(#"{"aps":{"content-available":1,"mutable-content":1}}"#)
        #expect(c.contentAvailable && c.mutableContent && !c.hasAlert)
    }

    @Test func buildKindDecidesTheProviderEnvironment() {
        #expect(BuildKind.development.providerEnvironment(on: .iOS) == .apnsSandbox)
        #expect(BuildKind.appStore.providerEnvironment(on: .iOS) == .apns)
        #expect(BuildKind.testFlight.providerEnvironment(on: .iOS) == .apns)
        #expect(BuildKind.adHoc.tokenEnvironment == .production)
        #expect(BuildKind.development.tokenEnvironment == .sandbox)
    }
}
