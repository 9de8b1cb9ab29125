import Foundation
import Testing

@testable import VirtualDevices

@Suite("NotificationCentre")
struct NotificationCentreTests {
    static func item(_ id: String, thread: String = "") -> DeliveredNotification {
        let content = PushContent(payload: Array(#"{"aps":{"alert":"x","thread-id":"\#(thread)"}}"#.utf8))
        let n = ApnsNotification(identifier: id, content: content, platform: .iOS, level: .active, source: .delegate)
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
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for step in 0..<5_000 {
            let id = "n\(Int.random(in: 0..<(step % 2 == 0 ? 130 : 400), using: &rng))"
            let replaced = c.add(Self.item(id))
            #expect(replaced?.identifier == (model.contains(id) ? id : nil))
            model = model.map { $0 == id ? nil : $0 }
            model.insert(id, at: 0)
            if model.count > NotificationCentre.capacity { model.removeLast() }
            if c.items.map(\.identifier) != model.compactMap({ $0 }) {
                Issue.record("diverged at step \(step) adding \(id) (seed \(seed))")
                return
            }
        }
        let kept = model.compactMap { $0 }
        for id in kept { #expect(c.find(id)?.identifier == id) }
        #expect((0..<400).filter { c.find("n\($0)") != nil }.count == kept.count)
    }

    /// Taps and dismissals (`remove`) mixed into deliveries, against the same model: a removed identifier's
    /// slot empties, a later delivery of it is new, and lookups of every identifier agree throughout (the
    /// index's chains are unlinked from their heads, middles and ends).
    @Test func removalsAndRedeliveriesMatchTheModel() {
        var c = NotificationCentre()
        var model: [String?] = []
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for step in 0..<5_000 {
            let id = "n\(Int.random(in: 0..<300, using: &rng))"
            if Int.random(in: 0..<4, using: &rng) == 0 {
                #expect(c.remove(id)?.identifier == (model.contains(id) ? id : nil))
                model = model.map { $0 == id ? nil : $0 }
            } else {
                _ = c.add(Self.item(id))
                model = model.map { $0 == id ? nil : $0 }
                model.insert(id, at: 0)
                if model.count > NotificationCentre.capacity { model.removeLast() }
            }
            if c.items.map(\.identifier) != model.compactMap({ $0 }) {
                Issue.record("diverged at step \(step) on \(id) (seed \(seed))")
                return
            }
        }
        let kept = Set(model.compactMap { $0 })
        for i in 0..<300 { #expect((c.find("n\(i)") != nil) == kept.contains("n\(i)")) }
    }

    @Test func fingerprintsAreNeverZeroAndTellIdentifiersApart() {
        let ids = ["", "a", "ab", "1234567", "12345678", "123456789", UUID().uuidString.lowercased(),
                   "f2a0c1d2-0000-4000-8000-000000000001", "f2a0c1d2-0000-4000-8000-000000000002",
                   String(repeating: "x", count: 200), "é", "collapse-1", "collapse-2"]
        let prints = ids.map(NotificationCentre.fingerprint)
        #expect(!prints.contains(0))
        #expect(Set(prints).count == ids.count)
    }
}

/// A seeded generator, so a failing random walk can be replayed from the seed its failure prints.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
