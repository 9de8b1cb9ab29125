import APNsEmulator
import APNsProtocol

/// The notifications an app has on display, newest first, grouped by thread identifier.
///
/// A notification whose identifier is already shown replaces it (`apns-collapse-id` becomes the request
/// identifier, so the same collapse id replaces the earlier notification) and shows as the newest; the
/// replaced one's place stays empty, so the centre holds what arrived among the last 100 deliveries.
struct NotificationCentre: Sendable {
    /// Notifications kept per app. Decision: like iOS, which trims an app's delivered notifications, the
    /// centre keeps the newest 100 (a load test pushing millions to one device must not grow it forever).
    /// (Slot numbers are kept as `Int16`: `Int16(slot)` traps should this ever exceed 32,767.)
    static let capacity = 100

    /// A ring of the newest notifications (slot `head` is written next), each slot with its index entry: the
    /// identifier's fingerprint (`Self.fingerprint`; 0: empty) and the next slot of its bucket's chain (-1 ends
    /// it). One array, so a delivery's writes (the new notification, unlinking the oldest, linking the new one)
    /// cost one uniqueness check where three arrays cost one per write (six a delivery).
    private var slots: [Slot] = []
    /// Slots by fingerprint: `bucketHeads[bucket(fingerprint)]` (its top bits) is the first slot of a chain that
    /// `Slot.next` continues; empty until the first notification. A delivery costs one fingerprint of the new
    /// identifier and a few integer steps; the dictionary from identifier to slot this replaces hashed two
    /// identifiers a delivery (the new one, and the evicted one to remove it) with SipHash. Chains stay short
    /// for any identifiers a sender picks: they hold at most the centre's 100 slots, and a collision costs a
    /// string comparison.
    private var bucketHeads: [Int16] = []
    private static let bucketBits = 7
    private static let bucketCount = 1 << bucketBits
    private var head = 0

    private struct Slot: Sendable {
        var notification: StoredNotification?
        var fingerprint: UInt64 = 0
        var next: Int16 = -1
    }

    /// Newest first.
    var items: [DeliveredNotification] {
        guard !slots.isEmpty else { return [] }
        var out: [DeliveredNotification] = []
        out.reserveCapacity(slots.count)
        for k in 1...slots.count {
            if let n = slots[(head - k + slots.count) % slots.count].notification { out.append(n.delivered) }
        }
        return out
    }

    /// Adds `notification`; returns the one it replaced, if any (the oldest beyond the capacity just leaves).
    /// Nothing is copied out of the ring but what is returned.
    mutating func add(_ notification: consuming StoredNotification) -> StoredNotification? {
        let fingerprint = Self.fingerprint(notification.identifier)
        let previous = slot(of: notification.identifier, fingerprint: fingerprint)
        let position: Int
        if slots.count < Self.capacity {
            // Filling up: a new slot at the end (`head` is `slots.count` until the ring is full).
            if bucketHeads.isEmpty { bucketHeads = [Int16](repeating: -1, count: Self.bucketCount) }
            slots.append(Slot())
            position = slots.count - 1
        } else {
            position = head
        }
        var replaced: StoredNotification?
        // After the swap below: the oldest notification, leaving (released when this returns), or nil.
        var incoming = Optional(consume notification)
        slots.withUnsafeMutableBufferPointer { slots in
            bucketHeads.withUnsafeMutableBufferPointer { heads in
                if let previous {
                    replaced = slots[previous].notification.take()
                    Self.unlink(previous, slots, heads)
                }
                Self.unlink(position, slots, heads)  // the oldest, leaving (nothing for a new or emptied slot)
                swap(&slots[position].notification, &incoming)
                let b = Self.bucket(fingerprint)
                slots[position].fingerprint = fingerprint
                slots[position].next = heads[b]
                heads[b] = Int16(position)
            }
        }
        head = (position + 1) % Self.capacity
        return replaced
    }

    /// Removes and returns the notification with `identifier` (tap, dismiss).
    mutating func remove(_ identifier: String) -> DeliveredNotification? {
        guard let slot = slot(of: identifier, fingerprint: Self.fingerprint(identifier)) else { return nil }
        return slots.withUnsafeMutableBufferPointer { slots in
            bucketHeads.withUnsafeMutableBufferPointer { heads in
                Self.unlink(slot, slots, heads)
                return slots[slot].notification.take()?.delivered
            }
        }
    }

    func find(_ identifier: String) -> DeliveredNotification? {
        slot(of: identifier, fingerprint: Self.fingerprint(identifier)).flatMap { slots[$0].notification?.delivered }
    }

    mutating func removeAll() {
        slots.removeAll()
        bucketHeads.removeAll()
        head = 0
    }

    /// The slot holding `identifier`, if any.
    private func slot(of identifier: String, fingerprint: UInt64) -> Int? {
        guard !bucketHeads.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            var q = Int(bucketHeads[Self.bucket(fingerprint)])
            while q >= 0 {
                // The identifier is read out of the ring only when the fingerprints match: for the notification
                // sought (a replacement, a tap), almost never for another.
                if slots[q].fingerprint == fingerprint && slots[q].notification?.identifier == identifier { return q }
                q = Int(slots[q].next)
            }
            return nil
        }
    }

    /// Empties a slot's index entry (its notification is the caller's to take); nothing if it is not linked.
    private static func unlink(_ slot: Int, _ slots: UnsafeMutableBufferPointer<Slot>, _ heads: UnsafeMutableBufferPointer<Int16>) {
        let fingerprint = slots[slot].fingerprint
        guard fingerprint != 0 else { return }
        let b = bucket(fingerprint)
        if Int(heads[b]) == slot {
            heads[b] = slots[slot].next
        } else {
            var q = Int(heads[b])
            while Int(slots[q].next) != slot { q = Int(slots[q].next) }
            slots[q].next = slots[slot].next
        }
        slots[slot].next = -1
        slots[slot].fingerprint = 0
    }

    @inline(__always)
    private static func bucket(_ fingerprint: UInt64) -> Int {
        Int(truncatingIfNeeded: fingerprint >> UInt64(64 - bucketBits))
    }

    /// A 64-bit fingerprint of an identifier (`Fingerprint`), never 0 (the empty slot's mark). A collision
    /// costs one string comparison, and a chain is bounded by the centre's capacity whatever the identifiers.
    static func fingerprint(_ identifier: String) -> UInt64 { Fingerprint.of(identifier) | 1 }

    /// Groups as the notification centre stacks them (iOS 12+): one per thread identifier, the empty
    /// thread being the app's default group; groups ordered by their newest notification.
    var groups: [NotificationGroup] {
        var order: [String] = []
        var groups: [String: NotificationGroup] = [:]
        for item in items {
            let n = item.notification
            let thread = n.threadIdentifier
            if groups[thread] == nil {
                order.append(thread)
                groups[thread] = NotificationGroup(threadIdentifier: thread, notificationIds: [])
            }
            groups[thread]?.notificationIds.append(item.identifier)
            groups[thread]?.summaryCount += n.summaryArgumentCount
            if !n.summaryArgument.isEmpty, groups[thread]?.summaryArguments.contains(n.summaryArgument) == false {
                groups[thread]?.summaryArguments.append(n.summaryArgument)
            }
        }
        return order.compactMap { groups[$0] }
    }
}

/// A notification as the centre keeps it, made into a `DeliveredNotification` when read.
///
/// How it was presented is two flags (the record an array); what a service extension left is kept as the
/// delivery had it (nil when none ran).
struct StoredNotification: Sendable {
    /// The push's `apns-id` (nil for a local notification).
    var apnsId: String?
    var notification: ApnsNotification
    var deliveredAt: Millis
    var soundPlayed: String
    var banner: Bool
    var list: Bool
    var contentExtension: Bool
    var extensionResult: VirtualApp.ExtensionResult?

    var identifier: String { notification.identifier }

    /// How it was presented, as the JSON shows it.
    var presentation: [String] { (banner ? ["banner"] : []) + (list ? ["list"] : []) }

    var delivered: DeliveredNotification {
        DeliveredNotification(
            identifier: notification.identifier, apnsId: apnsId, notification: notification, deliveredAt: deliveredAt,
            presentation: presentation, soundPlayed: soundPlayed,
            attachments: extensionResult?.attachments ?? [], serviceExtension: extensionResult?.outcome,
            serviceExtensionEvents: extensionResult?.events ?? [],
            attachmentFailures: extensionResult?.failures ?? [], contentExtension: contentExtension)
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
    /// The extension's run in order: didReceive, timeWillExpire, the content handler, or killed / timedOut.
    public var serviceExtensionEvents: [ExtensionEvent] = []
    /// Attachments the extension did not get onto the notification, each with a code and a reason.
    public var attachmentFailures: [AttachmentFailure] = []
    /// Whether the app's content extension draws it (its category is one the extension declares).
    public var contentExtension: Bool = false
}

/// One stack in the notification centre.
public struct NotificationGroup: Sendable, Codable, Equatable {
    public var threadIdentifier: String
    public var notificationIds: [String]
    /// The stack's summary ("5 more messages from Anna and Ben"): the count adds each notification's
    /// `summary-arg-count` (1 when absent), the arguments are the distinct `summary-arg`s, newest first.
    public var summaryCount = 0
    public var summaryArguments: [String] = []
}
