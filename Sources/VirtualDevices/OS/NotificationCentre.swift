import APNsEmulator

/// The notifications an app has on display, newest first, grouped by thread identifier.
///
/// A notification whose identifier is already shown replaces it (`apns-collapse-id` becomes the request
/// identifier, so the same collapse id replaces the earlier notification in place).
struct NotificationCentre: Sendable {
    private(set) var items: [DeliveredNotification] = []

    /// Adds `notification`; returns the one it replaced, if any.
    mutating func add(_ notification: DeliveredNotification) -> DeliveredNotification? {
        var replaced: DeliveredNotification?
        if let i = items.firstIndex(where: { $0.identifier == notification.identifier }) {
            replaced = items.remove(at: i)
        }
        items.insert(notification, at: 0)
        return replaced
    }

    /// Removes and returns the notification with `identifier` (tap, dismiss).
    mutating func remove(_ identifier: String) -> DeliveredNotification? {
        guard let i = items.firstIndex(where: { $0.identifier == identifier }) else { return nil }
        return items.remove(at: i)
    }

    func find(_ identifier: String) -> DeliveredNotification? {
        items.first { $0.identifier == identifier }
    }

    mutating func removeAll() {
        items.removeAll()
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
