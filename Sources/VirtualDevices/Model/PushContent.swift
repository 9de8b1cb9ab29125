import Foundation

/// The parts of a push payload the device acts on, read once when the push arrives.
///
/// The payload passed APNs validation (a JSON object under the size limit), so parsing cannot fail on
/// syntax; fields of an unexpected type are treated as absent, as iOS ignores them. The fields are those of
/// `Fields`, read and written as members (`content.title`).
@dynamicMemberLookup
public struct PushContent: Sendable, Equatable {
    /// The fields, behind one immutable reference: a push's content is copied from the farm's payload cache
    /// into every delivery, and copying a dozen strings cost a retain and a release each; a copy is now one.
    /// A change replaces the box (rare: a service extension's edits, a local notification being built).
    private var box: Box

    public struct Fields: Sendable, Equatable {
        public var title = ""
        public var subtitle = ""
        public var body = ""
        public var launchImage = ""
        /// `aps.badge` when present (0 clears).
        public var badge: Int?
        /// `aps.sound` as a name (a critical-sound dictionary gives its `name`).
        public var sound = ""
        public var category = ""
        public var threadId = ""
        /// `aps.alert.summary-arg` and `aps.alert.summary-arg-count`: what the thread group's summary counts this as.
        public var summaryArgument = ""
        public var summaryArgumentCount: Int?
        public var targetContentId = ""
        public var interruptionLevel: InterruptionLevel?
        public var relevanceScore: Double?
        public var contentAvailable = false
        public var mutableContent = false
        /// The whole payload, as sent (the plugin's `UserInfoJson`).
        public var userInfoJson = ""
        /// The top-level object, for predicates on custom keys (e.g. a delegate suppressing by key).
        public var topLevelKeys: Set<String> = []
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
        static let empty = Box(Fields())
    }

    public subscript<V>(dynamicMember key: WritableKeyPath<Fields, V>) -> V {
        get { box.fields[keyPath: key] }
        set {
            var fields = box.fields
            fields[keyPath: key] = newValue
            box = Box(fields)
        }
    }

    public static func == (a: PushContent, b: PushContent) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    public init() { box = Box.empty }

    /// Content with these fields (a record decoded from JSON).
    public init(_ fields: Fields) { box = Box(fields) }

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
            // Keys of the alert dictionary in Apple's payload reference, not of aps.
            f.summaryArgument = alert["summary-arg"] as? String ?? ""
            f.summaryArgumentCount = Self.integer(alert["summary-arg-count"])
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
    public var hasAlert: Bool { !self.title.isEmpty || !self.subtitle.isEmpty || !self.body.isEmpty }

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
