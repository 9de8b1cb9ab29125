import Foundation

/// The parts of a push payload the device acts on, read once when the push arrives.
///
/// The payload passed APNs validation (a JSON object under the size limit), so parsing cannot fail on
/// syntax; fields of an unexpected type are treated as absent, as iOS ignores them.
public struct PushContent: Sendable, Equatable {
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
    public var targetContentId = ""
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    public var contentAvailable = false
    public var mutableContent = false
    /// The whole payload, as sent (the plugin's `UserInfoJson`).
    public var userInfoJson = ""
    /// The top-level object, for predicates on custom keys (e.g. a delegate suppressing by key).
    public var topLevelKeys: Set<String> = []

    public init() {}

    /// Reads `payload` (UTF-8 JSON).
    public init(payload: [UInt8]) {
        userInfoJson = String(decoding: payload, as: UTF8.self)
        guard let root = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else { return }
        topLevelKeys = Set(root.keys)
        guard let aps = root["aps"] as? [String: Any] else { return }
        switch aps["alert"] {
        case let text as String:
            body = text
        case let alert as [String: Any]:
            title = Self.text(alert, "title", localized: "title-loc-key")
            subtitle = Self.text(alert, "subtitle", localized: "subtitle-loc-key")
            body = Self.text(alert, "body", localized: "loc-key")
            launchImage = alert["launch-image"] as? String ?? ""
        default:
            break
        }
        badge = Self.integer(aps["badge"])
        switch aps["sound"] {
        case let name as String: sound = name
        case let critical as [String: Any]: sound = critical["name"] as? String ?? ""
        default: break
        }
        category = aps["category"] as? String ?? ""
        threadId = aps["thread-id"] as? String ?? ""
        targetContentId = aps["target-content-id"] as? String ?? ""
        interruptionLevel = (aps["interruption-level"] as? String).flatMap(InterruptionLevel.init(apsValue:))
        relevanceScore = (aps["relevance-score"] as? NSNumber).map { min(1, max(0, $0.doubleValue)) }
        contentAvailable = Self.integer(aps["content-available"]) == 1
        mutableContent = Self.integer(aps["mutable-content"]) == 1
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
