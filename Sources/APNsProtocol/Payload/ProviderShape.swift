import Foundation

/// Recognises a payload written in a push provider's request format (FCM's, OneSignal's) instead of APNs', and
/// says how that provider would have mapped it. APNs accepts such a payload (it is a JSON object) and the phone
/// shows nothing or groups nothing; these words are what the journal and the fate add.
public enum ProviderShape {
    /// Hints for a parsed payload, in a fixed order; empty for an ordinary APNs payload.
    public static func hints(in root: [String: Any]) -> [String] {
        var hints: [String] = []
        let aps = root["aps"] as? [String: Any]
        if let n = root["notification"] as? [String: Any] {
            var mapped = ["aps.alert {title, body}"]
            if n["sound"] != nil { mapped.append("aps.sound") }
            if n["badge"] != nil { mapped.append("aps.badge") }
            hints.append("a top-level notification object is FCM's request format, which APNs does not read: FCM would have sent "
                         + mapped.joined(separator: ", "))
        }
        if root["headings"] != nil || root["contents"] != nil {
            hints.append("headings/contents are OneSignal's request fields, which APNs does not read: OneSignal would have sent"
                         + " aps.alert {title: headings.en, body: contents.en} with mutable-content: 1")
        }
        if root["to"] != nil || root["registration_ids"] != nil || root["message"] != nil {
            hints.append("to/registration_ids/message address FCM, not APNs: this is an FCM request body sent as an APNs payload")
        }
        if root["apns"] is [String: Any] {
            hints.append("an apns object is FCM's per-platform override: FCM sends its payload as the APNs payload, so put aps at"
                         + " the top level when sending to APNs directly")
        }
        for key in ["mutable_content", "content_available"] where root[key] != nil {
            hints.append("\(key) is FCM's legacy field: APNs reads aps.\(key.replacingOccurrences(of: "_", with: "-"))")
        }
        if root["thread_id"] != nil { hints.append("thread_id is OneSignal's field: APNs groups by aps.thread-id") }
        if let data = root["data"] as? [String: Any], data["thread-id"] != nil || data["thread_id"] != nil, aps?["thread-id"] == nil {
            hints.append("data.thread-id is a custom key: APNs groups by aps.thread-id (FCM cannot send one; a service"
                         + " extension can copy it into threadIdentifier)")
        }
        return hints
    }

    /// The same for payload bytes (nothing for bytes that are not a JSON object).
    public static func hints(inPayload payload: [UInt8]) -> [String] {
        guard let root = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else { return [] }
        return hints(in: root)
    }
}
