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

    public init(collectionEnabled: Bool = true, notificationEventsEnabled: Bool? = nil,
                persistNotificationEvents: Bool = true, apnsEnvironment: APNsEnvironment = .production,
                appDelegateBridge: Bool = true, sceneClickForwarding: Bool = true, shouldDisplay: Bool = true,
                categories: [NotificationCategory] = []) {
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
