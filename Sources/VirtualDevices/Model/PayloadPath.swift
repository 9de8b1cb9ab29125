import EmulatorControl
import Foundation

/// A dotted path into a push's JSON payload (`data.thread-id`, `custom.a.room`, `fcm_options.image`): how a
/// service extension or a delegate rule reads a value the sender put there.
enum PayloadPath {
    /// The payload as a JSON object (nil if it is not one).
    static func object(_ json: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }

    /// The value at `path`, if every step names a key of an object.
    static func value(at path: String, in object: [String: Any]?) -> Any? {
        var current: Any? = object
        for key in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let o = current as? [String: Any], let next = o[String(key)] else { return nil }
            current = next
        }
        return current
    }

    /// The value at `path` as text: a string as is, a number or a boolean as JSON writes it; nil for nothing,
    /// null, an object or an array.
    static func text(at path: String, in object: [String: Any]?) -> String? {
        switch value(at: path, in: object) {
        case let s as String: return s
        case let n as NSNumber:
            if JSONValueKind.isBoolean(n) { return n.boolValue ? "true" : "false" }
            return n.stringValue
        default: return nil
        }
    }
}
