/// The plugin's notification record (`ApnsNotification`): what the app sees of a notification in events
/// and from GetColdStartNotification (mapped from the payload as the push plugin maps it).
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
        set { set(\.title, newValue) }
    }
    public var subtitle: String {
        get { content.subtitle }
        set { set(\.subtitle, newValue) }
    }
    public var body: String {
        get { content.body }
        set { set(\.body, newValue) }
    }
    /// 0 when absent (absent and 0 are indistinguishable to the app).
    public var badge: Int {
        get { content.badge ?? 0 }
        set { set(\.badge, newValue) }
    }
    /// Empty for delegate-delivered notifications (no public API exposes it); `aps.sound` for cold start.
    public var sound: String {
        get { mapping == .coldStart || mapping == .literal ? content.sound : "" }
        set { set(\.sound, newValue) }
    }
    public var categoryIdentifier: String {
        get { content.category }
        set { set(\.categoryIdentifier, newValue) }
    }
    public var threadIdentifier: String {
        get { content.threadId }
        set { set(\.threadIdentifier, newValue) }
    }
    /// iOS only; always empty on macOS, and for cold start.
    public var launchImageName: String {
        get { mapping == .delegateIOS || mapping == .literal ? content.launchImage : "" }
        set { set(\.launchImageName, newValue) }
    }
    /// The thread group summary's argument and count (`aps.alert.summary-arg`, `aps.alert.summary-arg-count`, default 1):
    /// not plugin fields, what the centre's group summary is made of.
    var summaryArgument: String { content.summaryArgument }
    var summaryArgumentCount: Int { max(0, content.summaryArgumentCount ?? 1) }
    public var targetContentIdentifier: String {
        get { content.targetContentId }
        set { set(\.targetContentIdentifier, newValue) }
    }
    /// 0.0–1.0; 0.0 when absent, and for cold start.
    public var relevanceScore: Double {
        get { mapping == .coldStart ? 0 : content.relevanceScore ?? 0 }
        set { set(\.relevanceScore, newValue) }
    }
    /// The whole payload, `aps` and custom keys; empty in the empty notification.
    public var userInfoJson: String {
        get { content.userInfoJson }
        set { set(\.userInfoJson, newValue) }
    }

    /// Every field as the app sees it, stored: the JSON form (its coding keys are the property names), what
    /// `==` compares, and what a record becomes once a caller sets a field (mapping `.literal`).
    private struct Record: Codable, Equatable {
        var identifier: String
        var title: String
        var subtitle: String
        var body: String
        var badge: Int
        var sound: String
        var categoryIdentifier: String
        var threadIdentifier: String
        var launchImageName: String
        var targetContentIdentifier: String
        var interruptionLevel: InterruptionLevel
        var relevanceScore: Double
        var userInfoJson: String
        var isRemote: Bool
    }

    private var record: Record {
        Record(identifier: identifier, title: title, subtitle: subtitle, body: body, badge: badge, sound: sound,
               categoryIdentifier: categoryIdentifier, threadIdentifier: threadIdentifier,
               launchImageName: launchImageName, targetContentIdentifier: targetContentIdentifier,
               interruptionLevel: interruptionLevel, relevanceScore: relevanceScore, userInfoJson: userInfoJson,
               isRemote: isRemote)
    }

    private init(_ r: Record) {
        var f = PushContent.Fields()
        f.title = r.title
        f.subtitle = r.subtitle
        f.body = r.body
        f.badge = r.badge
        f.sound = r.sound
        f.category = r.categoryIdentifier
        f.threadId = r.threadIdentifier
        f.launchImage = r.launchImageName
        f.targetContentId = r.targetContentIdentifier
        f.relevanceScore = r.relevanceScore
        f.userInfoJson = r.userInfoJson
        identifier = r.identifier
        interruptionLevel = r.interruptionLevel
        isRemote = r.isRemote
        content = PushContent(f)
        mapping = .literal
    }

    private mutating func set<V>(_ field: WritableKeyPath<Record, V>, _ value: V) {
        var r = record
        r[keyPath: field] = value
        self = ApnsNotification(r)
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

    public init(from decoder: any Decoder) throws { self.init(try Record(from: decoder)) }

    public func encode(to encoder: any Encoder) throws { try record.encode(to: encoder) }

    /// Equal when every field the app sees is (however each was built).
    public static func == (a: ApnsNotification, b: ApnsNotification) -> Bool { a.record == b.record }
}
