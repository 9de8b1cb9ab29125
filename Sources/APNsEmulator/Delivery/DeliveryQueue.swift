import APNsProtocol

/// APNs' store-and-forward between an accepted push and the device: what is delivered now, later, or never.
///
/// ### Overview
/// ```
///   accept ──online──► priority 10 ─────────────────────────► deliver
///      │               priority 5/1 ──► deferred(until) ─tick─► deliver (or store, if now offline)
///      └──offline──► expiration 0 ─────────────────────────► expire ("offline, expiration 0")
///                    expired already ──────────────────────► expire
///                    else ──► stored (newest per token; the older one is coalesced)
///   device online ──► stored ──► deliver (or expire, if its time passed)
///   tick(now) ──► stored pushes past their expiration ──► expire
/// ```
/// A token is one app on one device, so "newest per token" is Apple's "only the latest notification per
/// app for an offline device". Pushes without `apns-expiration` are kept for `maximumStorageMillis`
/// (Apple: up to 30 days).
///
/// ### Implementation
/// A value type with no I/O and no clock of its own: the owner (the device farm) holds it under its lock,
/// passes `now` and whether the device is online, and carries out the returned actions in order.
public struct DeliveryQueue: Sendable {
    /// What happens to a push; the owner records each as the push's fate on the device.
    public enum Action: Sendable, Equatable {
        /// Hand it to the device now.
        case deliver(QueuedPush)
        /// The device is offline: held until it comes back (or the push expires).
        case store(QueuedPush)
        /// Held for later (priority 5 or 1 on an online device).
        case `defer`(QueuedPush, until: Millis)
        /// Dropped while stored: a newer push for the same app arrived (its `apns-id` given).
        case coalesce(QueuedPush, replacedBy: String)
        /// Dropped: its expiration passed before the device could get it.
        case expire(QueuedPush, Expiry)
    }

    /// Why a push expired.
    public enum Expiry: Sendable, Equatable {
        case whileOffline
        /// apns-expiration 0 and the device offline.
        case zeroExpirationOffline
        case expirationPassed

        public var text: String {
            switch self {
            case .whileOffline: return "expired while the device was offline"
            case .zeroExpirationOffline: return "the device was offline and apns-expiration is 0 (deliver now or never)"
            case .expirationPassed: return "apns-expiration had passed"
            }
        }
    }

    /// Priority 5 and 1 pushes to online devices wait this long (0: delivered at once).
    public var lowPriorityDelayMillis: Millis
    /// How long a push without `apns-expiration` is kept for an offline device.
    public var maximumStorageMillis: Millis

    /// Newest held push per token (offline devices).
    private var stored: [String: QueuedPush] = [:]
    /// Deferred pushes, in the order they became due.
    private var deferred: [(due: Millis, push: QueuedPush)] = []

    public init(lowPriorityDelayMillis: Millis = 0, maximumStorageMillis: Millis = 30 * 24 * 3600 * 1000) {
        self.lowPriorityDelayMillis = lowPriorityDelayMillis
        self.maximumStorageMillis = maximumStorageMillis
    }

    /// Pushes held for offline devices or deferred.
    public var pendingCount: Int { stored.count + deferred.count }

    /// The earliest time `tick` has something to do (a deferred push or a stored one expiring), if any.
    public var nextDue: Millis? {
        let storedDue = stored.values.map { expiry(of: $0) }.min()
        let deferredDue = deferred.first?.due
        switch (storedDue, deferredDue) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        default: return nil
        }
    }

    /// A push APNs accepted for a device that is `online` or not.
    public mutating func accept(_ push: QueuedPush, online: Bool, now: Millis) -> [Action] {
        var actions: [Action] = []
        if let due = acceptForDelivery(push, online: online, now: now, into: &actions) {
            actions.append(.deliver(due))
        }
        return actions
    }

    /// The same, except that a push going to the device at once (online, not deferred: every push of a load
    /// test) is returned instead of wrapped in an action, so the farm hands it on without copying it; other
    /// decisions are appended to `actions`.
    public mutating func acceptForDelivery(_ push: consuming QueuedPush, online: Bool, now: Millis,
                                           into actions: inout [Action]) -> QueuedPush? {
        if online {
            if !deliversAtOnce(priority: push.priority, online: online) {
                let due = Self.adding(now, lowPriorityDelayMillis)
                // Searched from the end: `due` is now plus a fixed delay, so it almost always goes last.
                let index = deferred.lastIndex { $0.due <= due }.map { $0 + 1 } ?? deferred.startIndex
                deferred.insert((due, push), at: index)
                actions.append(.defer(push, until: due))
                return nil
            }
            return push
        }
        store(push, now: now, into: &actions)
        return nil
    }

    /// Whether a push of `priority` to a device that is `online` or not goes to it at once (`acceptForDelivery`
    /// would return it): the owner may then hand the push over as it was accepted, without queueing it.
    public func deliversAtOnce(priority: Int, online: Bool) -> Bool {
        online && (priority >= 10 || lowPriorityDelayMillis <= 0)
    }

    /// The device owning `tokens` came online: hand over what was kept for it.
    public mutating func deviceOnline(tokens: [String], now: Millis) -> [Action] {
        var actions: [Action] = []
        for token in tokens {
            guard let push = stored.removeValue(forKey: token) else { continue }
            actions.append(expiry(of: push) <= now
                ? .expire(push, .whileOffline) : .deliver(push))
        }
        return actions
    }

    /// Time moved to `now`: deferred pushes that are due go out (or are stored if their device went
    /// offline meanwhile), stored pushes past their expiration are dropped.
    public mutating func tick(now: Millis, isOnline: (String) -> Bool) -> [Action] {
        var actions: [Action] = []
        // The due prefix leaves in one removal (one at a time from the front is quadratic in the backlog).
        let dueCount = deferred.firstIndex { $0.due > now } ?? deferred.count
        for entry in deferred[..<dueCount] {
            if isOnline(entry.push.token) {
                actions.append(.deliver(entry.push))
            } else {
                store(entry.push, now: now, into: &actions)
            }
        }
        deferred.removeFirst(dueCount)
        for (token, push) in stored where expiry(of: push) <= now {
            stored[token] = nil
            actions.append(.expire(push, .whileOffline))
        }
        return actions
    }

    /// The token is gone (app uninstalled, restored, device removed): what was held for it is returned so
    /// the owner can record it as dropped.
    public mutating func forget(token: String) -> [QueuedPush] {
        var dropped: [QueuedPush] = []
        if let push = stored.removeValue(forKey: token) { dropped.append(push) }
        dropped += deferred.filter { $0.push.token == token }.map(\.push)
        deferred.removeAll { $0.push.token == token }
        return dropped
    }

    /// Forgets everything (reset).
    public mutating func removeAll() {
        stored.removeAll()
        deferred.removeAll()
    }

    private mutating func store(_ push: QueuedPush, now: Millis, into actions: inout [Action]) {
        if push.expiration == 0 {
            actions.append(.expire(push, .zeroExpirationOffline))
            return
        }
        if expiry(of: push) <= now {
            actions.append(.expire(push, .expirationPassed))
            return
        }
        if let older = stored[push.token] {
            actions.append(.coalesce(older, replacedBy: push.apnsId))
        }
        stored[push.token] = push
        actions.append(.store(push))
    }

    /// When a held push stops being deliverable. `apns-expiration` can be any non-negative Int64 the
    /// sender chose, so the arithmetic saturates instead of trapping.
    private func expiry(of push: QueuedPush) -> Millis {
        if let expiration = push.expiration, expiration > 0 {
            let (ms, overflow) = expiration.multipliedReportingOverflow(by: 1000)
            return overflow ? .max : ms
        }
        return Self.adding(push.acceptedAt, maximumStorageMillis)
    }

    static func adding(_ a: Millis, _ b: Millis) -> Millis {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
