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

    /// The ring against the obvious model: the last 100 deliveries newest first, a replaced one leaving
    /// its place empty (the centre keeps what arrived among the last 100, like iOS trimming by age), over
    /// identifiers that repeat often enough to replace the oldest, a middle one and the newest.
    @Test func matchesTheLastHundredDeliveriesModel() {
        var c = NotificationCentre()
        var model: [String?] = []
        var rng = SystemRandomNumberGenerator()
        for step in 0..<5_000 {
            let id = "n\(Int.random(in: 0..<(step % 2 == 0 ? 130 : 400), using: &rng))"
            let replaced = c.add(Self.item(id))
            #expect(replaced?.identifier == (model.contains(id) ? id : nil))
            model = model.map { $0 == id ? nil : $0 }
            model.insert(id, at: 0)
            if model.count > NotificationCentre.capacity { model.removeLast() }
            if c.items.map(\.identifier) != model.compactMap({ $0 }) {
                Issue.record("diverged at step \(step) adding \(id)")
                return
            }
        }
        let kept = model.compactMap { $0 }
        for id in kept { #expect(c.find(id)?.identifier == id) }
        #expect((0..<400).filter { c.find("n\($0)") != nil }.count == kept.count)
    }
}
