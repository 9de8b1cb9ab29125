import Foundation
import H2Transport

/// What `send` reports about an APNs response: the status, Apple's reason and timestamp from the JSON body, and the
/// ids from the headers.
///
/// Fields are printed in a fixed order and only when present, so a script can `grep '^reason: '` or read the JSON
/// with `jq -r .reason` without caring whether the server sent a body at all.
struct SendOutcome: Sendable, Equatable {
    var status: Int
    /// `reason` from the error body.
    var reason: String?
    var apnsId: String?
    /// Sandbox responses carry it, for looking the delivery up in Apple's console.
    var apnsUniqueId: String?
    /// `timestamp` from a 410 body: milliseconds since 1970 when the token stopped being valid. Kept as the JSON
    /// number's text, so a value beyond `Int64` is shown as sent rather than rounded.
    var timestamp: String?
    /// Whether `timestamp` was a JSON number (as Apple sends it) rather than a string, so `--json` keeps its type.
    var timestampIsNumber = true
    /// A body that is not APNs's JSON, shown as is so a misbehaving server is visible rather than silently ignored.
    var unparsedBody: String?

    init(
        status: Int,
        reason: String? = nil,
        apnsId: String? = nil,
        apnsUniqueId: String? = nil,
        timestamp: String? = nil,
        unparsedBody: String? = nil
    ) {
        self.status = status
        self.reason = reason
        self.apnsId = apnsId
        self.apnsUniqueId = apnsUniqueId
        self.timestamp = timestamp
        self.unparsedBody = unparsedBody
    }

    /// - Parameter response: The response as received.
    init(_ response: H2Response) {
        self.init(status: response.status, apnsId: response["apns-id"], apnsUniqueId: response["apns-unique-id"])
        guard !response.body.isEmpty else { return }
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            unparsedBody = response.bodyText
            return
        }
        reason = object["reason"] as? String
        if let number = object["timestamp"] as? NSNumber {
            timestamp = number.stringValue
        } else if let text = object["timestamp"] as? String {
            timestamp = text
            timestampIsNumber = false
        }
        if reason == nil && timestamp == nil { unparsedBody = response.bodyText }
    }

    /// `key: value` lines in the order the help promises.
    var lines: [String] {
        fields.map { "\($0.key): \($0.value)" }
    }

    /// One JSON object with the same keys as `lines`; `status` and `timestamp` are numbers.
    var jsonText: String {
        let members = fields.map { field in
            let value = field.isNumber ? field.value : Self.quoted(field.value)
            return "\(Self.quoted(field.key)):\(value)"
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    private var fields: [(key: String, value: String, isNumber: Bool)] {
        var fields: [(key: String, value: String, isNumber: Bool)] = [("status", String(status), true)]
        if let reason { fields.append(("reason", reason, false)) }
        if let apnsId { fields.append(("apns-id", apnsId, false)) }
        if let apnsUniqueId { fields.append(("apns-unique-id", apnsUniqueId, false)) }
        if let timestamp { fields.append(("timestamp", timestamp, timestampIsNumber)) }
        if let unparsedBody { fields.append(("body", unparsedBody, false)) }
        return fields
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
