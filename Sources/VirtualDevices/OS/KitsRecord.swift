import APNsEmulator
import APNsProtocol

/// What the managed push SDK sent its backend's ingest (the emulator's stand-in for it), in the order it happened.
public struct KitsRecord: Sendable, Encodable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// `registerAPNsToken`: this launch's token and the environment the SDK registers it for.
        case token = "TOKEN"
        /// The notification was received: willPresent in the foreground, or the service extension's receipt.
        case received = "RECEIVED"
        /// The user acted on it (a real response other than a dismissal).
        case clicked = "CLICKED"
    }

    /// What reported it.
    public enum Source: String, Sendable, Codable {
        case registerAPNsToken, willPresent, response, serviceExtension
    }

    public var seq: Int
    public var at: Millis
    public var type: Kind
    public var source: Source
    public var deviceId: String
    public var bundleId: String
    /// The server's `kits_delivery_id` (received and clicked records).
    public var deliveryId: String?
    public var token: String?
    public var environment: KitsConfiguration.APNsEnvironment?
    public var actionIdentifier: String?
}

/// Why the SDK did or did not send a record for an OS callback: each decision, in order (the app's `sdk` view).
public struct KitsDecision: Sendable, Encodable, Equatable {
    public enum Outcome: String, Sendable, Codable {
        /// A record was sent.
        case recorded
        /// The notification is not the SDK's (no `kits_delivery_id` with the version marker): the host's own
        /// handler got it.
        case notOurs
        /// The SDK's notification, but the message did not ask for events (`track_events`).
        case notTracked
        /// Collection is off (`collectionEnabled` false or the stored refusal).
        case collectionDisabled
        /// `notificationEventsEnabled` is false.
        case eventsDisabled
        /// A dismissal is not a click.
        case dismissal
        /// The host did not wire the callback to the SDK (the AppDelegate bridge, or Scene click forwarding).
        case notWired
    }

    public var seq: Int
    public var at: Millis
    public var callback: String
    public var outcome: Outcome
    public var reason: String
}
