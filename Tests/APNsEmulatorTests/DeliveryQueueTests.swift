import APNsProtocol
import Testing

@testable import APNsEmulator

@Suite("DeliveryQueue: APNs store-and-forward")
struct DeliveryQueueTests {
    static func push(_ id: String, token: String = "aa", priority: Int = 10, expiration: Int64? = nil,
                     at: Millis = 1_000_000) -> QueuedPush {
        QueuedPush(apnsId: id, token: token, bundleId: "com.example.app", topic: "com.example.app", pushType: .alert,
                   priority: priority, expiration: expiration, collapseId: nil, payload: [], environment: .production,
                   acceptedAt: at)
    }

    @Test func onlineDeviceGetsThePushAtOnce() {
        var q = DeliveryQueue()
        #expect(q.accept(Self.push("1"), online: true, now: 1_000_000) == [.deliver(Self.push("1"))])
    }

    @Test func offlineDeviceKeepsOnlyTheNewestPerAppAndGetsItWhenBackOnline() {
        var q = DeliveryQueue()
        #expect(q.accept(Self.push("1"), online: false, now: 1_000_000) == [.store(Self.push("1"))])
        #expect(q.accept(Self.push("2"), online: false, now: 1_000_000)
            == [.coalesce(Self.push("1"), replacedBy: "2"), .store(Self.push("2"))])
        #expect(q.deviceOnline(tokens: ["aa"], now: 1_000_100) == [.deliver(Self.push("2"))])
        #expect(q.pendingCount == 0)
    }

    @Test func expirationZeroIsNeverStored() {
        var q = DeliveryQueue()
        let p = Self.push("1", expiration: 0)
        guard case .expire(p, _)? = q.accept(p, online: false, now: 1_000_000).first else {
            Issue.record("expected expire")
            return
        }
        #expect(q.pendingCount == 0)
    }

    @Test func storedPushExpiresAtItsExpiration() {
        var q = DeliveryQueue()
        let p = Self.push("1", expiration: 1_060)  // seconds: 60 s after acceptance
        _ = q.accept(p, online: false, now: 1_000_000)
        #expect(q.tick(now: 1_059_999, isOnline: { _ in false }) == [])
        guard case .expire(p, _)? = q.tick(now: 1_060_000, isOnline: { _ in false }).first else {
            Issue.record("expected expire at the expiration")
            return
        }
    }

    @Test func pushWithoutExpirationIsKeptUpToTheStorageLimit() {
        var q = DeliveryQueue(maximumStorageMillis: 10_000)
        _ = q.accept(Self.push("1"), online: false, now: 1_000_000)
        #expect(q.nextDue == 1_010_000)
        #expect(q.deviceOnline(tokens: ["aa"], now: 1_009_999) == [.deliver(Self.push("1"))])
    }

    @Test func lowPriorityIsDeferredWhenConfiguredAndDeliveredWhenDue() {
        var q = DeliveryQueue(lowPriorityDelayMillis: 5_000)
        let p = Self.push("1", priority: 5)
        #expect(q.accept(p, online: true, now: 1_000_000) == [.defer(p, until: 1_005_000)])
        #expect(q.tick(now: 1_004_999, isOnline: { _ in true }) == [])
        #expect(q.tick(now: 1_005_000, isOnline: { _ in true }) == [.deliver(p)])
    }

    @Test func deferredPushForADeviceThatWentOfflineIsStored() {
        var q = DeliveryQueue(lowPriorityDelayMillis: 5_000)
        let p = Self.push("1", priority: 1)
        _ = q.accept(p, online: true, now: 1_000_000)
        #expect(q.tick(now: 1_005_000, isOnline: { _ in false }) == [.store(p)])
    }

    @Test func forgottenTokenReturnsWhatWasHeldForTheDroppedRecord() {
        var q = DeliveryQueue(lowPriorityDelayMillis: 10)
        _ = q.accept(Self.push("1"), online: false, now: 1_000_000)
        _ = q.accept(Self.push("2", priority: 5), online: true, now: 1_000_000)
        #expect(q.forget(token: "aa").map(\.apnsId) == ["1", "2"])
        #expect(q.deviceOnline(tokens: ["aa"], now: 1_000_001) == [])
        #expect(q.pendingCount == 0)
    }

    @Test func hugeExpirationIsStoredWithoutOverflow() {
        var q = DeliveryQueue()
        let p = Self.push("1", expiration: Int64.max)
        #expect(q.accept(p, online: false, now: 1_000_000) == [.store(p)])
        #expect(q.tick(now: Int64.max - 1, isOnline: { _ in false }) == [])
        #expect(q.nextDue == Int64.max)
    }
}
