import Foundation

/// The notification whose tap launched the app from terminated, kept for one GetColdStartNotification.
///
/// ```
///   empty ──store(payload)──► stored(n) ──take()──► consumed   (take() answers n once,
///     ▲                                               │          then the empty notification)
///     └─────────────── next launch (reset) ◄──────────┘
/// ```
/// Never answers nil: before a forward, after the one read, for a normal launch or when the delegate did
/// not forward, the answer is `ApnsNotification.empty`.
struct ColdStartSlot: Sendable {
    private enum State: Sendable, Equatable {
        case empty
        case stored(ApnsNotification)
        case consumed
    }

    private var state = State.empty

    /// NotifyColdStartNotification(userInfoJson): an empty string, `{}` or JSON that is not an object
    /// stores nothing. Returns whether something was stored.
    @discardableResult
    mutating func store(identifier: String, userInfoJson: String, platform: Platform) -> Bool {
        let bytes = Array(userInfoJson.utf8)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
              !object.isEmpty else { return false }
        state = .stored(ApnsNotification(identifier: identifier, content: PushContent(payload: bytes),
                                         platform: platform, level: .unspecified, source: .coldStart))
        return true
    }

    /// The stored notification once, then the empty one.
    mutating func take() -> ApnsNotification {
        guard case .stored(let n) = state else { return .empty }
        state = .consumed
        return n
    }

    /// What `take` would answer, without taking it.
    func peek() -> ApnsNotification {
        guard case .stored(let n) = state else { return .empty }
        return n
    }

    /// A new launch starts with nothing stored.
    mutating func reset() {
        state = .empty
    }
}
