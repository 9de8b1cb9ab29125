/// How an app hosts the managed push SDK ("Kits"): the options it initializes the SDK with and how the host wired
/// it. The emulator stands in for the SDK's backend ingest, so what the SDK would send there can be read back.
public struct KitsConfiguration: Sendable, Encodable, Equatable {
    /// Where the SDK registers the token (`KitsIOSOptions.apnsEnvironment`). Production unless the app says
    /// otherwise; a development-signed app that forgets `.sandbox` registers a token production APNs refuses.
    public enum APNsEnvironment: String, Sendable, Codable, CaseIterable { case production, sandbox }

    /// `collectionEnabled` at initialization: false holds collection until the app calls `setCollectionEnabled(true)`.
    public var collectionEnabled: Bool
    /// Received and clicked records. nil is the SDK's default (on); an explicit false stays off even when collection
    /// is enabled later.
    public var notificationEventsEnabled: Bool?
    /// Records kept and retried until the ingest takes them (on by default).
    public var persistNotificationEvents: Bool
    public var apnsEnvironment: APNsEnvironment
    /// The AppDelegate bridge (or a `KitsPushAppDelegate` subclass): without it the SDK never gets the token.
    public var appDelegateBridge: Bool
    /// A Scene-based app must forward clicks too: without it the SDK never sees a response.
    public var sceneClickForwarding: Bool
    /// `shouldDisplay`: whether the SDK's notifications are shown while the app is in the foreground (background
    /// ones the OS shows itself, and the SDK cannot stop that).
    public var shouldDisplay: Bool
    /// The SDK's own button categories (`KitsNotificationActions(categories:)`), registered beside the host's.
    public var categories: [NotificationCategory]
    /// How the host's delegate calls the OS completion handler around the SDK's handlers.
    public enum CompletionHandler: String, Sendable, Codable, CaseIterable {
        /// Exactly once on every path (correct).
        case once
        /// Never: willPresent shows nothing; a response held that way ends a background-launched app at the
        /// system's limit.
        case never
        /// Twice: UserNotifications raises an exception and the app crashes.
        case twice
        /// Held while the app waits for navigation: past the system's limit, as `never`.
        case late
    }
    public var completionHandler: CompletionHandler
    /// A foreground listener that calls `event.preventDefault()`: the OS presentation is suppressed and the app
    /// draws its own banner (whose real clicks it records with `recordClick`).
    public var preventDefault: Bool
    /// The service extension is set up for receipt reporting; what its `receiptConfiguration` can read of
    /// consent (nil: no receipt reporting).
    public enum ExtensionConsent: String, Sendable, Codable, CaseIterable {
        /// Read from a setting shared through an App Group: the app's own choice.
        case appGroup
        /// The extension's own stored setting, allowed (the app's later refusal does not reach it).
        case granted
        case refused
        /// Nothing the extension can read: it reports nothing.
        case unknown
    }
    public var receipts: ExtensionConsent?
    /// What the SDK reports with a session (`CFBundleShortVersionString`, the device language).
    public var appVersion: String
    public var language: String
    /// The host hands the SDK the token it saved at its first registration instead of this launch's (a
    /// misconfiguration: after a restore the saved token is no longer valid).
    public var handsOverCachedToken: Bool = false

    public init(collectionEnabled: Bool = true, notificationEventsEnabled: Bool? = nil,
                persistNotificationEvents: Bool = true, apnsEnvironment: APNsEnvironment = .production,
                appDelegateBridge: Bool = true, sceneClickForwarding: Bool = true, shouldDisplay: Bool = true,
                categories: [NotificationCategory] = [], completionHandler: CompletionHandler = .once,
                preventDefault: Bool = false, receipts: ExtensionConsent? = nil, appVersion: String = "1.0",
                language: String = "en-US") {
        self.completionHandler = completionHandler
        self.preventDefault = preventDefault
        self.receipts = receipts
        self.appVersion = appVersion
        self.language = language
        self.collectionEnabled = collectionEnabled
        self.notificationEventsEnabled = notificationEventsEnabled
        self.persistNotificationEvents = persistNotificationEvents
        self.apnsEnvironment = apnsEnvironment
        self.appDelegateBridge = appDelegateBridge
        self.sceneClickForwarding = sceneClickForwarding
        self.shouldDisplay = shouldDisplay
        self.categories = categories
    }

    /// The SDK's limits for its own registrations (iOS sets none): at most 32 categories, each with 1 to 3 plain
    /// actions (no text input).
    public static let maxCategories = 32
    public static let actionsPerCategory = 1...3
}
