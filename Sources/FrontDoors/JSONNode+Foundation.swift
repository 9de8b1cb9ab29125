import EmulatorControl
import Foundation

extension JSONNode {
    /// The value as Foundation objects, for `JSONSerialization` (payloads are small: a few KiB at most).
    package var foundation: Any {
        switch kind {
        case .object:
            var out: [String: Any] = [:]
            for key in keys { out[key] = self[key]?.foundation }
            return out
        case .array: return elements.map(\.foundation)
        case .string: return string ?? ""
        case .integer: return integer ?? 0
        case .real: return double ?? 0
        case .bool: return bool ?? false
        case .null: return NSNull()
        }
    }

    /// A string field, or an error naming the field when it is there but not a string.
    func string(_ name: String, at path: String) throws(FCMError) -> String? {
        guard let node = self[name], !node.isNull else { return nil }
        guard let s = node.string else {
            throw .invalid("Invalid value at '\(path).\(name)' (TYPE_STRING), \(node.description)")
        }
        return s
    }

    /// An object field, or an error when it is there but not an object.
    func object(_ name: String, at path: String) throws(FCMError) -> JSONNode? {
        guard let node = self[name], !node.isNull else { return nil }
        guard node.kind == .object else {
            throw .invalid("Invalid value at '\(path).\(name)' (type.googleapis.com/google.protobuf.Struct), \(node.description)")
        }
        return node
    }
}
