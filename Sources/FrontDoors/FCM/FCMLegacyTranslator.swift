import EmulatorControl
import VirtualDevices
import Foundation

/// A legacy HTTP API body (`POST /fcm/send`) made into the APNs request FCM sent for one of its targets.
///
/// The rules, from FCM's legacy notification-payload reference (iOS column) and the legacy server protocol:
/// `notification.title`, `body`, `subtitle` → `aps.alert`; `sound` → `aps.sound` (no sound without it);
/// `badge` → `aps.badge`, an absolute value; `click_action` → `aps.category`; `body_loc_key`/`body_loc_args` and
/// `title_loc_key`/`title_loc_args` → `loc-key`/`loc-args` and `title-loc-key`/`title-loc-args`; top-level
/// `mutable_content` and `content_available` (booleans, snake case) → `mutable-content: 1` and
/// `content-available: 1`; `priority` high/normal → `apns-priority` 10/5; `time_to_live` → `apns-expiration`;
/// `collapse_key` → `apns-collapse-id`; `data` keys beside `aps`; FCM adds `gcm.message_id`. Fields the legacy API
/// does not know (`mutable-content` with a dash, an `apns` object) are ignored, and said so in the notes.
package enum FCMLegacyTranslator {
    /// A per-target failure, as the legacy API reports it in `results[].error`.
    package struct Failure: Error, Equatable, Sendable {
        package var error: String
        package var detail: String
    }

    private static let known: Set<String> = [
        "to", "registration_ids", "condition", "notification", "data", "mutable_content", "content_available",
        "priority", "time_to_live", "collapse_key", "dry_run", "restricted_package_name",
    ]

    package static func translate(_ body: JSONNode, target: String, projectNumber: UInt64, messageId: String, nowSeconds: Int64)
        throws(Failure) -> Result<RelayedPush, NotRelayed>
    {
        let token: FCMRegistrationToken
        do {
            token = try FCMDevice.resolve(target, projectNumber: projectNumber)
        } catch {
            throw Failure(error: error.fcmCode == .senderIdMismatch ? "MismatchSenderId" : "InvalidRegistration", detail: error.message)
        }
        var notes: [String] = []
        for key in body.keys where !known.contains(key) {
            switch key {
            case "mutable-content", "content-available":
                notes.append("\(key) is not a field of FCM's legacy API (it reads \(key.replacingOccurrences(of: "-", with: "_")): true), so it was ignored")
            case "apns":
                notes.append("apns is not a field of FCM's legacy API: put the content under notification; the apns object was ignored")
            default:
                notes.append("\(key) is not a field of FCM's legacy API and was ignored")
            }
        }
        var builder = APNsPayloadBuilder()
        if let n = body["notification"], n.kind == .object {
            for (from, to) in [("title", "title"), ("body", "body"), ("subtitle", "subtitle"), ("body_loc_key", "loc-key"),
                               ("title_loc_key", "title-loc-key")] {
                if let value = n[from]?.string { builder.alert[to] = value }
            }
            for (from, to) in [("body_loc_args", "loc-args"), ("title_loc_args", "title-loc-args")] {
                if let args = n[from] { builder.alert[to] = locArgs(args) }
            }
            if let sound = n["sound"]?.string { builder.aps["sound"] = sound }
            if let badge = n["badge"] {
                // The reference types it as a string; senders send the number (100) too. Both set the badge absolutely.
                if let number = badge.integer { builder.aps["badge"] = number } else if let text = badge.string, let number = Int64(text) {
                    builder.aps["badge"] = number
                } else {
                    notes.append("notification.badge \(badge.description) is not a number; no badge was sent")
                }
            }
            if let category = n["click_action"]?.string { builder.aps["category"] = category }
            let used: Set<String> = ["title", "body", "subtitle", "body_loc_key", "body_loc_args", "title_loc_key", "title_loc_args",
                                     "sound", "badge", "click_action"]
            for key in n.keys where !used.contains(key) {
                if key == "thread-id" || key == "thread_id" {
                    notes.append("notification.\(key) is not an FCM field: FCM sends no aps.thread-id, so nothing groups by it")
                } else {
                    notes.append("notification.\(key) has no APNs counterpart in FCM's legacy API and was not sent")
                }
            }
        }
        if let data = body["data"], data.kind == .object {
            for key in data.keys {
                do { try FCMDataKeys.check(key) } catch { throw Failure(error: "InvalidDataKey", detail: error.message) }
                builder.custom[key] = data[key]?.foundation
                if key == "thread-id" || key == "thread_id" {
                    notes.append("data.\(key) arrives as a custom key beside aps, not as aps.thread-id: the OS does not group by it"
                                 + " (a service extension can copy it into threadIdentifier)")
                }
            }
        }
        if body["mutable_content"]?.bool == true { builder.aps["mutable-content"] = 1 }
        if body["content_available"]?.bool == true { builder.aps["content-available"] = 1 }
        guard builder.hasVisibleContent || builder.contentAvailable else {
            return .failure(NotRelayed(reason: "a message with no notification and no content_available is FCM data for the SDK's own"
                                       + " connection while the app runs; FCM makes no APNs push of it", notes: notes))
        }
        builder.custom["gcm.message_id"] = messageId
        var headers: [(name: String, value: String)] = []
        if let priority = body["priority"]?.string { headers.append(("apns-priority", priority == "normal" ? "5" : "10")) }
        if let ttl = body["time_to_live"]?.integer {
            guard (0...2_419_200).contains(ttl) else { throw Failure(error: "InvalidTtl", detail: "time_to_live must be 0 to 2419200 seconds") }
            headers.append(("apns-expiration", ttl == 0 ? "0" : String(nowSeconds + ttl)))
        }
        if let collapse = body["collapse_key"]?.string { headers.append(("apns-collapse-id", collapse)) }
        var push = FCMDevice.push(to: token, payload: builder, headers: headers, nowSeconds: nowSeconds)
        push.notes = notes
        return .success(push)
    }

    /// `loc-args` is an array; the legacy reference types it as a stringified JSON array, so both are read.
    private static func locArgs(_ node: JSONNode) -> Any {
        if node.kind == .array { return node.foundation }
        if let text = node.string, let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any] { return parsed }
        return [node.string ?? node.description]
    }
}
