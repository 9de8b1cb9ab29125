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
