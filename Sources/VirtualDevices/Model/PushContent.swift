import Foundation

/// The parts of a push payload the device acts on, read once when the push arrives.
///
/// The payload passed APNs validation (a JSON object under the size limit), so parsing cannot fail on
/// syntax; fields of an unexpected type are treated as absent, as iOS ignores them.
public struct PushContent: Sendable, Equatable {
    /// The fields, behind one immutable reference: a push's content is copied from the farm's payload cache
    /// into every delivery, and copying a dozen strings cost a retain and a release each; a copy is now one.
    /// A change replaces the box (rare: a service extension's edits, a local notification being built), and
    /// reading a `let` through it needs no retain of the box.
    private var box: Box

    struct Fields: Sendable, Equatable {
        var title: String = ""
        var subtitle: String = ""
        var body: String = ""
        var launchImage: String = ""
        var badge: Int? = nil
        var sound: String = ""
        var category: String = ""
        var threadId: String = ""
        var targetContentId: String = ""
        var interruptionLevel: InterruptionLevel? = nil
        var relevanceScore: Double? = nil
        var contentAvailable: Bool = false
        var mutableContent: Bool = false
        var userInfoJson: String = ""
        var topLevelKeys: Set<String> = []
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
        static let empty = Box(Fields())
    }

    private mutating func update<V>(_ key: WritableKeyPath<Fields, V>, _ value: V) {
        var fields = box.fields
        fields[keyPath: key] = value
        box = Box(fields)
    }

    public static func == (a: PushContent, b: PushContent) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    public var title: String {
        get { box.fields.title }
        set { update(\.title, newValue) }
    }
    public var subtitle: String {
        get { box.fields.subtitle }
        set { update(\.subtitle, newValue) }
    }
    public var body: String {
        get { box.fields.body }
        set { update(\.body, newValue) }
    }
    public var launchImage: String {
        get { box.fields.launchImage }
        set { update(\.launchImage, newValue) }
    }
    /// `aps.badge` when present (0 clears).
    public var badge: Int? {
        get { box.fields.badge }
        set { update(\.badge, newValue) }
    }
    /// `aps.sound` as a name (a critical-sound dictionary gives its `name`).
    public var sound: String {
        get { box.fields.sound }
        set { update(\.sound, newValue) }
    }
    public var category: String {
        get { box.fields.category }
        set { update(\.category, newValue) }
    }
    public var threadId: String {
        get { box.fields.threadId }
        set { update(\.threadId, newValue) }
    }
    public var targetContentId: String {
        get { box.fields.targetContentId }
        set { update(\.targetContentId, newValue) }
    }
    public var interruptionLevel: InterruptionLevel? {
        get { box.fields.interruptionLevel }
        set { update(\.interruptionLevel, newValue) }
    }
    public var relevanceScore: Double? {
        get { box.fields.relevanceScore }
        set { update(\.relevanceScore, newValue) }
    }
    public var contentAvailable: Bool {
        get { box.fields.contentAvailable }
        set { update(\.contentAvailable, newValue) }
    }
    public var mutableContent: Bool {
        get { box.fields.mutableContent }
        set { update(\.mutableContent, newValue) }
    }
    /// The whole payload, as sent (the plugin's `UserInfoJson`).
    public var userInfoJson: String {
        get { box.fields.userInfoJson }
        set { update(\.userInfoJson, newValue) }
    }
    /// The top-level object, for predicates on custom keys (e.g. a delegate suppressing by key).
    public var topLevelKeys: Set<String> {
        get { box.fields.topLevelKeys }
        set { update(\.topLevelKeys, newValue) }
    }

    public init() { box = Box.empty }

    /// Reads `payload` (UTF-8 JSON).
    public init(payload: [UInt8]) {
        var f = Fields()
        Self.read(payload, into: &f)
        box = Box(f)
    }

    private static func read(_ payload: [UInt8], into f: inout Fields) {
        f.userInfoJson = String(decoding: payload, as: UTF8.self)
        guard let root = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else { return }
        f.topLevelKeys = Set(root.keys)
        guard let aps = root["aps"] as? [String: Any] else { return }
        switch aps["alert"] {
        case let text as String:
            f.body = text
        case let alert as [String: Any]:
            f.title = Self.text(alert, "title", localized: "title-loc-key")
            f.subtitle = Self.text(alert, "subtitle", localized: "subtitle-loc-key")
            f.body = Self.text(alert, "body", localized: "loc-key")
            f.launchImage = alert["launch-image"] as? String ?? ""
        default:
            break
        }
        f.badge = Self.integer(aps["badge"])
        switch aps["sound"] {
        case let name as String: f.sound = name
        case let critical as [String: Any]: f.sound = critical["name"] as? String ?? ""
        default: break
        }
        f.category = aps["category"] as? String ?? ""
        f.threadId = aps["thread-id"] as? String ?? ""
        f.targetContentId = aps["target-content-id"] as? String ?? ""
        f.interruptionLevel = (aps["interruption-level"] as? String).flatMap(InterruptionLevel.init(apsValue:))
        f.relevanceScore = (aps["relevance-score"] as? NSNumber).map { min(1, max(0, $0.doubleValue)) }
        f.contentAvailable = Self.integer(aps["content-available"]) == 1
        f.mutableContent = Self.integer(aps["mutable-content"]) == 1
    }

    /// Whether the push shows an alert (a title, subtitle or body to display).
    public var hasAlert: Bool { !title.isEmpty || !subtitle.isEmpty || !body.isEmpty }

    /// The literal text, or the localization key standing in for it (the emulator has no string tables).
    private static func text(_ alert: [String: Any], _ key: String, localized: String) -> String {
        if let s = alert[key] as? String { return s }
        return alert[localized] as? String ?? ""
    }

    private static func integer(_ value: Any?) -> Int? {
        guard let n = value as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        let d = n.doubleValue
        guard d.rounded() == d, abs(d) < 1e15 else { return nil }
        return Int(d)
    }
}
