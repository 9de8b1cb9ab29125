import EmulatorControl
import Foundation

/// The APNs request a provider's front door makes of one message: what FCM or OneSignal would send Apple.
package struct RelayedPush: Sendable {
    /// Where it goes.
    package var apnsToken: String
    package var sandbox: Bool
    /// `apns-*` request headers, `apns-topic` included, in the order they are sent.
    package var headers: [(name: String, value: String)]
    /// The JSON payload.
    package var payload: [UInt8]
    /// What the provider did with parts of the request it does not use, in words (shown with the message).
    package var notes: [String] = []

    package func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// A message the provider accepted but would not hand to APNs, and why (the seed of a diagnostic).
package struct NotRelayed: Error, Sendable {
    package var reason: String
    package var notes: [String] = []
}

extension JSONNode {
    /// The value as Foundation objects, for `JSONSerialization` (payloads are small: a few KiB at most).
    var foundation: Any {
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
