import APNsProtocol

/// The notification the user expanded (long-press) and what its content extension did with it: whether its
/// own interface is showing or the system's default one, and its calls in order.
///
/// ```
///   expand(n) ── drawn by the extension ──► custom [didReceive] ──memory over the cap──► default [killed]
///       │                                      │ action (responseOption) → [didReceiveResponse]
///       └── not drawn ──► default []            └ collapse / tap / dismiss / dismissed by its answer → closed
/// ```
public struct ContentExtensionSession: Sendable, Equatable, Encodable {
    public enum Interface: String, Sendable, Encodable {
        /// The extension's own view.
        case custom
        /// The system's default interface (no extension for the category, or the watchdog killed it).
        case `default`
    }

    public struct Event: Sendable, Equatable, Encodable {
        public enum Kind: String, Sendable, Encodable {
            /// `didReceive(_ notification:)`: the extension draws the notification.
            case didReceive
            /// `didReceive(_ response:completionHandler:)`: an action button, handled by the extension.
            case didReceiveResponse
            /// The memory watchdog ended it.
            case killed
            /// The expanded notification closed.
            case closed
        }

        public var at: Millis
        public var event: Kind
        public var actionIdentifier: String?
    }

    public var notificationId: String
    public var interface: Interface
    public var events: [Event]

    public var isOpen: Bool { events.last?.event != .closed }

    /// The user long-presses `notificationId`.
    static func expand(_ notificationId: String, drawnByExtension: Bool, settings: ContentExtensionSettings,
                       at now: Millis) -> ContentExtensionSession {
        guard drawnByExtension else { return ContentExtensionSession(notificationId: notificationId, interface: .default, events: []) }
        var s = ContentExtensionSession(notificationId: notificationId, interface: .custom,
                                        events: [Event(at: now, event: .didReceive)])
        if settings.memoryMB > settings.memoryLimitMB {
            s.interface = .default
            s.events.append(Event(at: now, event: .killed))
        }
        return s
    }

    mutating func close(at now: Millis) {
        guard isOpen else { return }
        events.append(Event(at: now, event: .closed))
    }
}
