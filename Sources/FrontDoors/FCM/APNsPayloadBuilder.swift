import Foundation

/// The APNs payload a provider assembles: the `aps` dictionary, its `alert`, and the custom keys beside `aps`.
struct APNsPayloadBuilder {
    var aps: [String: Any] = [:]
    var alert: [String: Any] = [:]
    var custom: [String: Any] = [:]

    /// Something the notification centre can show or play: alert text, a badge or a sound.
    var hasVisibleContent: Bool {
        !alert.isEmpty || aps["alert"] != nil || aps["badge"] != nil || aps["sound"] != nil
    }

    var contentAvailable: Bool { (aps["content-available"] as? Int64 ?? (aps["content-available"] as? Int).map(Int64.init)) == 1 }

    /// Merges an `aps` dictionary given whole (FCM's `apns.payload.aps`): its keys win, and an `alert` object is
    /// merged key by key into the one built from the message's notification.
    mutating func merge(aps given: [String: Any]) {
        for (key, value) in given {
            if key == "alert" {
                if let fields = value as? [String: Any] {
                    for (k, v) in fields { alert[k] = v }
                } else {
                    alert = [:]
                    aps["alert"] = value
                }
            } else {
                aps[key] = value
            }
        }
    }

    var bytes: [UInt8] {
        var aps = self.aps
        if !alert.isEmpty { aps["alert"] = alert }
        var root = custom
        root["aps"] = aps
        return JSONText.bytes(root)
    }

    /// `alert`, `background`: the push type a provider infers when the sender names none.
    var inferredPushType: String { hasVisibleContent ? "alert" : "background" }
}
