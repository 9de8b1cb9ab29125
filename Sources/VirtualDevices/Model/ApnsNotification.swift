/// The plugin's notification record (`ApnsNotification`): what the app sees of a notification in events
/// and from GetColdStartNotification (`device-model.md` §1, "mapping from the payload").
public struct ApnsNotification: Sendable, Codable, Equatable {
    /// The OS request identifier (`apns-collapse-id` when given, else the `apns-id`); empty in the empty
    /// notification. Not a plugin field: it lets a caller tap the notification it saw.
    public var identifier: String
    public var interruptionLevel: InterruptionLevel
    /// Whether the notification came from a push (false for a local notification the app scheduled).
    public var isRemote: Bool
    /// The fields are read from the push's content when asked for, not copied out of it: a record is built
    /// for every push shown and kept in the notification centre, and copying its ten strings cost a retain each
    /// (and a release each when the centre let it go). `PushContent` is one reference to its fields.
    private var content: PushContent
    private var mapping: Mapping

    /// How the content maps to the record's fields.
    private enum Mapping: UInt8, Sendable {
        /// The OS notification the delegate forwards, on iOS (launch image) or macOS (none).
        case delegateIOS, delegateMacOS
        /// The raw launch payload (cold start): the sound, and nothing only the OS computes.
        case coldStart
        /// Every field as the content holds it (a decoded record).
        case literal
    }

    public var title: String {
        get { content.title }
        set { change { $0.title = newValue } }
    }
    public var subtitle: String {
        get { content.subtitle }
        set { change { $0.subtitle = newValue } }
    }
    public var body: String {
        get { content.body }
        set { change { $0.body = newValue } }
    }
    /// 0 when absent (absent and 0 are indistinguishable to the app).
    public var badge: Int {
        get { content.badge ?? 0 }
        set { change { $0.badge = newValue } }
    }
    /// Empty for delegate-delivered notifications (no public API exposes it); `aps.sound` for cold start.
    public var sound: String {
        get {
            switch mapping {
            case .coldStart, .literal: content.sound
            case .delegateIOS, .delegateMacOS: ""
            }
        }
        set { change { $0.sound = newValue } }
    }
    public var categoryIdentifier: String {
        get { content.category }
        set { change { $0.category = newValue } }
    }
    public var threadIdentifier: String {
        get { content.threadId }
        set { change { $0.threadId = newValue } }
    }
    /// iOS only; always empty on macOS, and for cold start.
    public var launchImageName: String {
        get {
            switch mapping {
            case .delegateIOS, .literal: content.launchImage
            case .delegateMacOS, .coldStart: ""
            }
        }
        set { change { $0.launchImage = newValue } }
    }
    public var targetContentIdentifier: String {
        get { content.targetContentId }
        set { change { $0.targetContentId = newValue } }
    }
    /// 0.0–1.0; 0.0 when absent, and for cold start.
    public var relevanceScore: Double {
        get { mapping == .coldStart ? 0 : content.relevanceScore ?? 0 }
        set { change { $0.relevanceScore = newValue } }
    }
    /// The whole payload, `aps` and custom keys; empty in the empty notification.
    public var userInfoJson: String {
        get { content.userInfoJson }
        set { change { $0.userInfoJson = newValue } }
    }

    /// A field set by a caller: from then on the record holds every field as it reads now (mapping `.literal`).
    private mutating func change(_ edit: (inout PushContent.Fields) -> Void) {
        var f = PushContent.Fields()
        f.title = title
        f.subtitle = subtitle
        f.body = body
        f.badge = badge
        f.sound = sound
        f.category = categoryIdentifier
        f.threadId = threadIdentifier
        f.launchImage = launchImageName
        f.targetContentId = targetContentIdentifier
        f.relevanceScore = relevanceScore
        f.userInfoJson = userInfoJson
        edit(&f)
        content = PushContent(f)
        mapping = .literal
    }

    /// All fields default: what GetColdStartNotification returns when there is nothing (never null).
    public static let empty = ApnsNotification(identifier: "", content: PushContent(), platform: .iOS,
                                               level: .unspecified, source: .coldStart)

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
        self.content = content
        self.isRemote = isRemote
        switch source {
        case .delegate:
            mapping = platform == .iOS ? .delegateIOS : .delegateMacOS
            interruptionLevel = level
        case .coldStart:
            mapping = .coldStart
            interruptionLevel = .unspecified
        }
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, title, subtitle, body, badge, sound, categoryIdentifier, threadIdentifier, launchImageName
        case targetContentIdentifier, interruptionLevel, relevanceScore, userInfoJson, isRemote
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var fields = PushContent.Fields()
        fields.title = try c.decode(String.self, forKey: .title)
        fields.subtitle = try c.decode(String.self, forKey: .subtitle)
        fields.body = try c.decode(String.self, forKey: .body)
        fields.badge = try c.decode(Int.self, forKey: .badge)
        fields.sound = try c.decode(String.self, forKey: .sound)
        fields.category = try c.decode(String.self, forKey: .categoryIdentifier)
        fields.threadId = try c.decode(String.self, forKey: .threadIdentifier)
        fields.launchImage = try c.decode(String.self, forKey: .launchImageName)
        fields.targetContentId = try c.decode(String.self, forKey: .targetContentIdentifier)
        fields.relevanceScore = try c.decode(Double.self, forKey: .relevanceScore)
        fields.userInfoJson = try c.decode(String.self, forKey: .userInfoJson)
        identifier = try c.decode(String.self, forKey: .identifier)
        interruptionLevel = try c.decode(InterruptionLevel.self, forKey: .interruptionLevel)
        isRemote = try c.decode(Bool.self, forKey: .isRemote)
        content = PushContent(fields)
        mapping = .literal
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(identifier, forKey: .identifier)
        try c.encode(title, forKey: .title)
        try c.encode(subtitle, forKey: .subtitle)
        try c.encode(body, forKey: .body)
        try c.encode(badge, forKey: .badge)
        try c.encode(sound, forKey: .sound)
        try c.encode(categoryIdentifier, forKey: .categoryIdentifier)
        try c.encode(threadIdentifier, forKey: .threadIdentifier)
        try c.encode(launchImageName, forKey: .launchImageName)
        try c.encode(targetContentIdentifier, forKey: .targetContentIdentifier)
        try c.encode(interruptionLevel, forKey: .interruptionLevel)
        try c.encode(relevanceScore, forKey: .relevanceScore)
        try c.encode(userInfoJson, forKey: .userInfoJson)
        try c.encode(isRemote, forKey: .isRemote)
    }

    /// Equal when every field the app sees is (however each was built).
    public static func == (a: ApnsNotification, b: ApnsNotification) -> Bool {
        a.identifier == b.identifier && a.interruptionLevel == b.interruptionLevel && a.isRemote == b.isRemote
            && a.title == b.title && a.subtitle == b.subtitle && a.body == b.body && a.badge == b.badge
            && a.sound == b.sound && a.categoryIdentifier == b.categoryIdentifier
            && a.threadIdentifier == b.threadIdentifier && a.launchImageName == b.launchImageName
            && a.targetContentIdentifier == b.targetContentIdentifier && a.relevanceScore == b.relevanceScore
            && a.userInfoJson == b.userInfoJson
    }
}
