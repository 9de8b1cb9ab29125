/// The plugin's notification record (`ApnsNotification`): what the app sees of a notification in events
/// and from GetColdStartNotification (`device-model.md` §1, "mapping from the payload").
public struct ApnsNotification: Sendable, Codable, Equatable {
    /// The OS request identifier (`apns-collapse-id` when given, else the `apns-id`); empty in the empty
    /// notification. Not a plugin field: it lets a caller tap the notification it saw.
    public var identifier: String
    public var title: String
    public var subtitle: String
    public var body: String
    /// 0 when absent (absent and 0 are indistinguishable to the app).
    public var badge: Int
    /// Empty for delegate-delivered notifications (no public API exposes it); `aps.sound` for cold start.
    public var sound: String
    public var categoryIdentifier: String
    public var threadIdentifier: String
    /// iOS only; always empty on macOS, and for cold start.
    public var launchImageName: String
    public var targetContentIdentifier: String
    public var interruptionLevel: InterruptionLevel
    /// 0.0–1.0; 0.0 when absent, and for cold start.
    public var relevanceScore: Double
    /// The whole payload, `aps` and custom keys; empty in the empty notification.
    public var userInfoJson: String
    /// Whether the notification came from a push (false for a local notification the app scheduled).
    public var isRemote: Bool

    /// All fields default: what GetColdStartNotification returns when there is nothing (never null).
    public static let empty = ApnsNotification(
        identifier: "", title: "", subtitle: "", body: "", badge: 0, sound: "", categoryIdentifier: "",
        threadIdentifier: "", launchImageName: "", targetContentIdentifier: "", interruptionLevel: .unspecified,
        relevanceScore: 0, userInfoJson: "", isRemote: true)

    /// Where a record is built: from the OS notification the delegate forwards, or from the raw launch
    /// payload (cold start), which lacks what only the OS computes.
    public enum Source: Sendable {
        case delegate
        case coldStart
    }

    /// Maps a payload to the record the app sees.
    /// - Parameters:
    ///   - level: The interruption level after the entitlement downgrade (`OSNotification.effectiveLevel`).
    public init(identifier: String, content: PushContent, platform: Platform, level: InterruptionLevel,
                source: Source, isRemote: Bool = true) {
        self.identifier = identifier
        self.title = content.title
        self.subtitle = content.subtitle
        self.body = content.body
        self.badge = content.badge ?? 0
        self.categoryIdentifier = content.category
        self.threadIdentifier = content.threadId
        self.targetContentIdentifier = content.targetContentId
        self.userInfoJson = content.userInfoJson
        self.isRemote = isRemote
        switch source {
        case .delegate:
            self.sound = ""
            self.launchImageName = platform == .iOS ? content.launchImage : ""
            self.interruptionLevel = level
            self.relevanceScore = content.relevanceScore ?? 0
        case .coldStart:
            self.sound = content.sound
            self.launchImageName = ""
            self.interruptionLevel = .unspecified
            self.relevanceScore = 0
        }
    }

    private init(identifier: String, title: String, subtitle: String, body: String, badge: Int, sound: String,
                 categoryIdentifier: String, threadIdentifier: String, launchImageName: String,
                 targetContentIdentifier: String, interruptionLevel: InterruptionLevel, relevanceScore: Double,
                 userInfoJson: String, isRemote: Bool) {
        self.identifier = identifier
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.categoryIdentifier = categoryIdentifier
        self.threadIdentifier = threadIdentifier
        self.launchImageName = launchImageName
        self.targetContentIdentifier = targetContentIdentifier
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.userInfoJson = userInfoJson
        self.isRemote = isRemote
    }
}
