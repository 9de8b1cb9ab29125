import APNsEmulator
import APNsProtocol

/// What the managed push SDK sent its backend's ingest (the emulator's stand-in for it), in the order it happened.
public struct KitsRecord: Sendable, Encodable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// `registerAPNsToken`: this launch's token and the environment the SDK registers it for.
        case token = "TOKEN"
        /// The notification was received: willPresent in the foreground, or the service extension's receipt.
        case received = "RECEIVED"
        /// The user acted on it (a real response other than a dismissal, or the in-app banner's recordClick).
        case clicked = "CLICKED"
        /// A session began: the app came to the foreground (what segments are built from).
        case session = "SESSION"
    }

    /// What reported it.
    public enum Source: String, Sendable, Codable {
        case registerAPNsToken, willPresent, response, serviceExtension, inAppBanner, foreground
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
    /// What `KitsNotificationActions.action(for:)` returned for the response: the SDK's own button, else absent.
    public var sdkAction: String?
    /// SESSION only: sessions so far (this one included), when the first and the one before began, and the
    /// foreground time of those before it.
    public var sessionCount: Int?
    public var firstSessionAt: Millis?
    public var previousSessionAt: Millis?
    public var foregroundMillis: Millis?
    public var appVersion: String?
    public var language: String?
    /// Tries it took to reach the ingest (more than 1 when it was kept and retried), and when it arrived there.
    public var attempts: Int
    public var ingestedAt: Millis?

    init(kind: Kind, source: Source, deviceId: String, bundleId: String) {
        seq = 0
        at = 0
        type = kind
        self.source = source
        self.deviceId = deviceId
        self.bundleId = bundleId
        attempts = 0
    }
}

/// Why the SDK did or did not send a record for an OS callback: each decision, in order (the app's `sdk` view).
public struct KitsDecision: Sendable, Encodable, Equatable {
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        /// A record was sent (or queued for the ingest).
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
        /// The foreground listener called preventDefault: the OS shows nothing, the app draws its own banner.
        case preventedDefault
        /// The ingest was unavailable: the record is kept and retried (`persistNotificationEvents`), or lost.
        case queued
        case lost
        /// The ingest refused the SDK for good (401): the record is dropped, not retried.
        case permanentFailure
        /// The service extension reports no receipt: its consent reads refused or unknown.
        case noReceiptConsent
        /// The host's delegate did not call the OS completion handler exactly once.
        case completionHandlerMisused
        /// The host handed the SDK a saved token instead of this launch's.
        case staleToken
    }

    public var seq: Int
    public var at: Millis
    public var callback: String
    public var outcome: Outcome
    public var reason: String
}

extension KitsDecision.Outcome {
    /// Every outcome's name, for the document.
    static var allNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
