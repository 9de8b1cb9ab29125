import Testing

@testable import VirtualDevices

@Suite("ColdStartSlot")
struct ColdStartSlotTests {
    @Test func storedNotificationIsReturnedOnceThenEmpty() {
        var slot = ColdStartSlot()
        let stored = slot.store(identifier: "n1", userInfoJson: #"{"aps":{"alert":"hi","sound":"ping.caf"}}"#, platform: .iOS)
        #expect(stored)
        let first = slot.take()
        #expect(first.body == "hi")
        #expect(first.sound == "ping.caf", "cold start carries aps.sound")
        #expect(first.interruptionLevel == .unspecified)
        #expect(first.relevanceScore == 0)
        #expect(slot.take() == .empty)
    }

    @Test(arguments: ["", "{}", "[1,2]", "\"text\"", "not json"])
    func emptyOrNonObjectJsonStoresNothing(_ json: String) {
        var slot = ColdStartSlot()
        let stored = slot.store(identifier: "n", userInfoJson: json, platform: .iOS)
        #expect(!stored)
        #expect(slot.take() == .empty)
    }

    @Test func emptyNotificationHasEveryFieldDefaultNeverNil() {
        let e = ApnsNotification.empty
        #expect(e.title.isEmpty && e.body.isEmpty && e.userInfoJson.isEmpty && e.badge == 0)
        #expect(e.interruptionLevel.rawValue == 0)
    }
}
