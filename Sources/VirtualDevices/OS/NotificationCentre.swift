import APNsEmulator

/// The notifications an app has on display, newest first, grouped by thread identifier.
///
/// A notification whose identifier is already shown replaces it (`apns-collapse-id` becomes the request
/// identifier, so the same collapse id replaces the earlier notification) and shows as the newest; the
/// replaced one's place stays empty, so the centre holds what arrived among the last 100 deliveries.
struct NotificationCentre: Sendable {
    /// Notifications kept per app. Decision: like iOS, which trims an app's delivered notifications, the
    /// centre keeps the newest 100 (a load test pushing millions to one device must not grow it forever).
    static let capacity = 100

    /// A ring of the newest notifications (slot `head` is written next) and where each identifier sits, so a
    /// delivery costs a hash lookup and one slot write: no scan, no shifting (load tests push to one device).
    private var ring: [DeliveredNotification?] = []
    /// The identifier in each ring slot (nil: empty). Kept beside the ring because reading
    /// `ring[i]?.identifier` copies the whole notification out of the array and destroys it again: a few dozen
    /// retains and releases per delivery for one string.
    private var identifiers: [String?] = []
    private var head = 0
    private var slots: [String: Int] = [:]

    /// Newest first.
    var items: [DeliveredNotification] {
        guard !ring.isEmpty else { return [] }
        var out: [DeliveredNotification] = []
        out.reserveCapacity(slots.count)
        for k in 1...ring.count {
            if let n = ring[(head - k + ring.count) % ring.count] { out.append(n) }
        }
        return out
    }

    /// Adds `notification`; returns the one it replaced, if any (the oldest beyond the capacity just leaves).
    ///
    /// Two hash lookups in steady state: the new identifier's (which also finds what it replaces) and the
    /// evicted one's. Nothing is copied out of the ring but what is returned.
    mutating func add(_ notification: consuming DeliveredNotification) -> DeliveredNotification? {
        let position = ring.count < Self.capacity ? ring.count : head
        let identifier = notification.identifier
        var replaced: DeliveredNotification?
        if let previous = slots.updateValue(position, forKey: identifier), previous != position {
            replaced = ring[previous].take()
            identifiers[previous] = nil
        } else if position < identifiers.count, identifiers[position] == identifier {
            replaced = ring[position].take()
        }
        if position < identifiers.count, let evicted = identifiers[position], evicted != identifier {
            slots.removeValue(forKey: evicted)
        }
        if position == ring.count {
            ring.append(consume notification)
            identifiers.append(identifier)
        } else {
            ring[position] = consume notification
            identifiers[position] = identifier
        }
        head = (position + 1) % Self.capacity
        return replaced
    }

    /// Removes and returns the notification with `identifier` (tap, dismiss).
    mutating func remove(_ identifier: String) -> DeliveredNotification? {
        guard let slot = slots.removeValue(forKey: identifier) else { return nil }
        identifiers[slot] = nil
        return ring[slot].take()
    }

    func find(_ identifier: String) -> DeliveredNotification? {
        slots[identifier].flatMap { ring[$0] }
    }

    mutating func removeAll() {
        ring.removeAll()
        identifiers.removeAll()
        slots.removeAll()
        head = 0
    }

    /// Groups as the notification centre stacks them (iOS 12+): one per thread identifier, the empty
    /// thread being the app's default group; groups ordered by their newest notification.
    var groups: [NotificationGroup] {
        var order: [String] = []
        var members: [String: [String]] = [:]
        for item in items {
            let thread = item.notification.threadIdentifier
            if members[thread] == nil { order.append(thread) }
            members[thread, default: []].append(item.identifier)
        }
        return order.map { NotificationGroup(threadIdentifier: $0, notificationIds: members[$0] ?? []) }
    }
}

/// A notification on display.
public struct DeliveredNotification: Sendable, Codable, Equatable {
    public var identifier: String
    /// The push's `apns-id` (nil for a local notification).
    public var apnsId: String?
    public var notification: ApnsNotification
    public var deliveredAt: Millis
    /// How it was presented: `banner` and/or `list` (foreground: what willPresent asked for).
    public var presentation: [String]
    /// The sound played on arrival (empty: silent).
    public var soundPlayed: String
    /// Media the service extension attached.
    public var attachments: [AttachmentRecord] = []
    /// How the service extension ended (`completed`, `expiredBestAttempt`, `timedOut`, `killed`); nil when
    /// none ran.
    public var serviceExtension: String?
    /// Whether the app's content extension draws it (its category is one the extension declares).
    public var contentExtension: Bool = false
}

/// One stack in the notification centre.
public struct NotificationGroup: Sendable, Codable, Equatable {
    public var threadIdentifier: String
    public var notificationIds: [String]
}
