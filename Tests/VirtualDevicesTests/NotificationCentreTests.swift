import Testing

@testable import VirtualDevices

@Suite("NotificationCentre")
struct NotificationCentreTests {
    static func item(_ id: String, thread: String = "") -> DeliveredNotification {
        var n = ApnsNotification.empty
        n.identifier = id
        n.threadIdentifier = thread
        return DeliveredNotification(identifier: id, apnsId: id, notification: n, deliveredAt: 0, presentation: ["list"],
                                     soundPlayed: "")
    }

    @Test func keepsTheNewestHundredNewestFirst() {
        var c = NotificationCentre()
        for i in 0..<250 { _ = c.add(Self.item("n\(i)")) }
        #expect(c.items.count == 100)
        #expect(c.items.first?.identifier == "n249")
        #expect(c.items.last?.identifier == "n150")
        #expect(c.find("n149") == nil)
    }

    @Test func sameIdentifierReplacesAndRemovedOnesAreGone() {
        var c = NotificationCentre()
        _ = c.add(Self.item("a"))
        _ = c.add(Self.item("b"))
        let replaced = c.add(Self.item("a", thread: "t"))
        #expect(replaced?.identifier == "a")
        #expect(c.items.map(\.identifier) == ["a", "b"])
        #expect(c.items.first?.notification.threadIdentifier == "t")
        #expect(c.remove("b")?.identifier == "b")
        #expect(c.items.map(\.identifier) == ["a"])
        #expect(c.remove("b") == nil)
    }
}
