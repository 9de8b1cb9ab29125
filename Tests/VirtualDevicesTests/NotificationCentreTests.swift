import Foundation
import Testing

@testable import VirtualDevices

@Suite("NotificationCentre")
struct NotificationCentreTests {
    /// A stored push notification; `apnsId` nil: the identifier is its apns-id (no collapse id).
    static func item(_ id: String, thread: String = "", apnsId: String? = nil) -> StoredNotification {
        let content = PushContent(payload: Array(#"{"aps":{"alert":"x","thread-id":"\#(thread)"}}"#.utf8))
        let n = ApnsNotification(identifier: id, content: content, platform: .iOS, level: .active, source: .delegate)
        return StoredNotification(apnsId: apnsId ?? id, notification: n, deliveredAt: 0,
                                  soundPlayed: "", banner: false, list: true, contentExtension: false, extensionResult: nil)
    }

    /// The apns-id reads back whether it is the identifier (no collapse id) or another string (a collapse id).
    @Test func theApnsIdReadsBackWhetherOrNotItIsTheIdentifier() {
        #expect(Self.item("id-1").apnsId == "id-1" && Self.item("id-1").delivered.apnsId == "id-1")
        let collapsed = Self.item("collapse-me", apnsId: "id-2")
        #expect(collapsed.apnsId == "id-2" && collapsed.identifier == "collapse-me")
        #expect(collapsed.delivered.apnsId == "id-2" && collapsed.delivered.identifier == "collapse-me")
    }

    /// The centre keeps a compact record and reads it back as the public one, field for field: the identifier
    /// is the notification's, the presentation flags become the JSON's array, an extension's outcome its fields.
    @Test func aStoredNotificationReadsBackAsTheRecord() {
        var plain = Self.item("id-1")
        plain.banner = true
        plain.soundPlayed = "default"
        plain.deliveredAt = 42
        let record = plain.delivered
        #expect(record.identifier == "id-1" && record.notification.identifier == "id-1" && record.apnsId == "id-1")
        #expect(record.presentation == ["banner", "list"] && record.soundPlayed == "default" && record.deliveredAt == 42)
        #expect(record.attachments.isEmpty && record.serviceExtension == nil && !record.contentExtension)
        var extended = Self.item("id-2")
        extended.contentExtension = true
        let attachment = AttachmentRecord(identifier: "a", url: "https://example.com/a.png", type: .png, bytes: 10,
                                          durationSeconds: nil)
        extended.extensionResult = .init(outcome: "completed", attachments: [attachment], log: ["downloaded a.png"])
        let second = extended.delivered
        #expect(second.presentation == ["list"] && second.contentExtension)
        #expect(second.attachments == [attachment] && second.serviceExtension == "completed")
        var c = NotificationCentre()
        _ = c.add(plain)
        _ = c.add(extended)
        #expect(c.items == [second, record])
        #expect(c.find("id-1") == record && c.remove("id-2") == second)
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

    /// The obvious model of the centre: the last 100 deliveries newest first, a replaced or removed one
    /// leaving its place empty (the centre keeps what arrived among the last 100, like iOS trimming by age).
    struct Model {
        var slots: [String?] = []
        var shown: [String] { slots.compactMap { $0 } }
        func contains(_ id: String) -> Bool { slots.contains(id) }
        mutating func remove(_ id: String) { slots = slots.map { $0 == id ? nil : $0 } }
        mutating func deliver(_ id: String) {
            remove(id)
            slots.insert(id, at: 0)
            if slots.count > NotificationCentre.capacity { slots.removeLast() }
        }
    }

    /// Runs `steps` random operations on a centre and the model from a random seed; `operation` does one on
    /// both and names it. The centre's items must equal the model's after each step; a divergence is
    /// reported with the step and the seed, so it can be replayed.
    static func walk(steps: Int, _ operation: (inout NotificationCentre, inout Model, Int, inout SplitMix64) -> String)
        -> (NotificationCentre, Model)
    {
        var c = NotificationCentre()
        var model = Model()
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for step in 0..<steps {
            let done = operation(&c, &model, step, &rng)
            if c.items.map(\.identifier) != model.shown {
                Issue.record("diverged at step \(step), \(done) (seed \(seed))")
                break
            }
        }
        return (c, model)
    }

    /// Deliveries only, over identifiers that repeat often enough to replace the oldest, a middle one and the
    /// newest.
    @Test func matchesTheLastHundredDeliveriesModel() {
        let (c, model) = Self.walk(steps: 5_000) { c, model, step, rng in
            let id = "n\(Int.random(in: 0..<(step % 2 == 0 ? 130 : 400), using: &rng))"
            #expect(c.add(Self.item(id))?.identifier == (model.contains(id) ? id : nil))
            model.deliver(id)
            return "adding \(id)"
        }
        for id in model.shown { #expect(c.find(id)?.identifier == id) }
        #expect((0..<400).filter { c.find("n\($0)") != nil }.count == model.shown.count)
    }

    /// Taps and dismissals (`remove`) mixed into deliveries: a removed identifier's slot empties, a later
    /// delivery of it is new, and lookups of every identifier agree throughout (the index's chains are unlinked
    /// from their heads, middles and ends).
    @Test func removalsAndRedeliveriesMatchTheModel() {
        let (c, model) = Self.walk(steps: 5_000) { c, model, _, rng in
            let id = "n\(Int.random(in: 0..<300, using: &rng))"
            if Int.random(in: 0..<4, using: &rng) == 0 {
                #expect(c.remove(id)?.identifier == (model.contains(id) ? id : nil))
                model.remove(id)
                return "removing \(id)"
            }
            _ = c.add(Self.item(id))
            model.deliver(id)
            return "adding \(id)"
        }
        let kept = Set(model.shown)
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
