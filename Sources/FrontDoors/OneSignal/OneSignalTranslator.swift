import EmulatorControl
import Foundation

/// A create-notification body made into the APNs request OneSignal sends each iOS subscription.
///
/// The rules, from the field descriptions of OneSignal's API reference (its OpenAPI document, as the official
/// clients carry it) and the payload keys OneSignal's iOS SDK reads:
/// - `headings`, `subtitle`, `contents` (language maps; English is used) → `aps.alert` title, subtitle, body;
///   without `contents` only `content_available` sends anything (a background push, priority 5);
/// - `mutable_content` "always defaults to true and cannot be turned off": every alert carries `mutable-content: 1`;
/// - `ios_sound` → `aps.sound`, else the default sound (`"default"`); null plays none;
/// - `ios_badgeType` `SetTo` / `Increase` with `ios_badgeCount` → `aps.badge`: the count, or the count OneSignal
///   keeps for the subscription plus it (negative decreases); `None` or absent leaves the badge alone;
/// - `thread_id` → `aps.thread-id`; `summary_arg`, `summary_arg_count` → `aps.alert.summary-arg`, `summary-arg-count`;
/// - `ios_category` → `aps.category`; `content_available` → `aps.content-available: 1`;
///   `ios_interruption_level`, `ios_relevance_score`, `target_content_identifier` → their `aps` keys;
/// - `data` → `custom.a`, `url` → `custom.u`, the notification id → `custom.i`; `ios_attachments` → `att`;
/// - `collapse_id` → `apns-collapse-id`; `ttl` (default 259,200 s, at most 2,419,200) → `apns-expiration`;
///   `priority` 10 → 10, another number → 5 (iOS defaults to high); `apns_push_type_override: voip` → a VoIP push.
package enum OneSignalTranslator {
    /// What is the same for every subscription of one notification.
    package struct Plan {
        var builder = APNsPayloadBuilder()
        var headers: [(name: String, value: String)] = []
        var badge: (type: String, count: Int64)?
        var voip = false
        package var notes: [String] = []
    }

    package static func plan(_ body: JSONNode, notificationId: String, nowSeconds: Int64) throws(OneSignalError) -> Plan {
        var plan = Plan()
        func text(_ name: String) throws(OneSignalError) -> String? {
            guard let node = body[name], !node.isNull else { return nil }
            if let s = node.string { return s }
            guard node.kind == .object else { throw OneSignalError(400, "\(name) must be an object of language codes to strings") }
            if let en = node["en"]?.string { return en }
            if let first = node.keys.first, let s = node[first]?.string {
                plan.notes.append("\(name) has no \"en\"; the \(first) text was used")
                return s
            }
            throw OneSignalError(400, "\(name) must map language codes to strings")
        }
        let contents = try text("contents")
        let contentAvailable = body["content_available"]?.bool == true
        guard contents != nil || contentAvailable else {
            throw OneSignalError(400, "Notifications must have English language content")
        }
        var b = APNsPayloadBuilder()
        if let contents {
            b.alert["body"] = contents
            if let title = try text("headings") { b.alert["title"] = title }
            if let subtitle = try text("subtitle") { b.alert["subtitle"] = subtitle }
            b.aps["mutable-content"] = 1
            if body["mutable_content"]?.bool == false {
                plan.notes.append("mutable_content: false has no effect: OneSignal always sends mutable-content: 1")
            }
            if let sound = body["ios_sound"] {
                if let s = sound.string { b.aps["sound"] = s }
            } else {
                b.aps["sound"] = "default"
            }
            if let summary = body["summary_arg"]?.string { b.alert["summary-arg"] = summary }
            if let count = body["summary_arg_count"]?.integer { b.alert["summary-arg-count"] = count }
        }
        if contentAvailable { b.aps["content-available"] = 1 }
        if let thread = body["thread_id"]?.string { b.aps["thread-id"] = thread }
        if let category = body["ios_category"]?.string { b.aps["category"] = category }
        if let level = body["ios_interruption_level"]?.string {
            b.aps["interruption-level"] = level == "time_sensitive" ? "time-sensitive" : level
        }
        if let score = body["ios_relevance_score"]?.double { b.aps["relevance-score"] = score }
        if let target = body["target_content_identifier"]?.string { b.aps["target-content-id"] = target }
        var custom: [String: Any] = ["i": notificationId]
        if let url = body["url"]?.string ?? body["app_url"]?.string { custom["u"] = url }
        if let data = body["data"], data.kind == .object { custom["a"] = data.foundation }
        b.custom["custom"] = custom
        if let attachments = body["ios_attachments"], attachments.kind == .object { b.custom["att"] = attachments.foundation }

        if let type = body["ios_badgeType"]?.string, type != "None" {
            guard type == "SetTo" || type == "Increase" else {
                throw OneSignalError(400, "ios_badgeType must be None, SetTo or Increase")
            }
            let countNode = body["ios_badgeCount"]
            // The reference types it as an integer; older code (through the community SDK) sends a string such as "1".
            guard let count = countNode?.integer ?? countNode?.string.flatMap({ Int64($0) }) else {
                throw OneSignalError(400, "ios_badgeCount must be a number with ios_badgeType \(type)")
            }
            plan.badge = (type, count)
        } else if body["ios_badgeCount"] != nil {
            plan.notes.append("ios_badgeCount without ios_badgeType SetTo or Increase leaves the badge alone")
        }
        if body["thread-id"] != nil { plan.notes.append("thread-id is not a OneSignal field (it reads thread_id)") }

        let ttl = body["ttl"]?.integer ?? 259_200
        guard (0...2_419_200).contains(ttl) else { throw OneSignalError(400, "ttl must be 0 to 2419200 seconds") }
        plan.voip = body["apns_push_type_override"]?.string == "voip"
        let background = contents == nil
        plan.headers.append(("apns-push-type", plan.voip ? "voip" : background ? "background" : "alert"))
        let priority = body["priority"]?.integer.map { $0 == 10 ? "10" : "5" } ?? (background ? "5" : "10")
        plan.headers.append(("apns-priority", priority))
        plan.headers.append(("apns-expiration", ttl == 0 ? "0" : String(nowSeconds + ttl)))
        if let collapse = body["collapse_id"]?.string { plan.headers.append(("apns-collapse-id", collapse)) }
        plan.builder = b
        return plan
    }

    /// The push for one subscription; `badge` is what `nextBadge` gives for the plan's badge (nil: none).
    package static func push(_ plan: Plan, to subscription: OneSignalSubscription, bundleId: String,
                             nextBadge: (_ type: String, _ count: Int64) -> Int64)
        -> (RelayedPush, badge: Int64?)
    {
        var builder = plan.builder
        var badge: Int64?
        if let (type, count) = plan.badge {
            badge = nextBadge(type, count)
            builder.aps["badge"] = badge
        }
        var headers = plan.headers
        headers.append(("apns-topic", plan.voip ? bundleId + ".voip" : bundleId))
        let push = RelayedPush(apnsToken: subscription.apnsToken, sandbox: subscription.environment == "sandbox", headers: headers,
                               payload: builder.bytes, notes: plan.notes)
        return (push, badge)
    }
}
