import APNsEmulator
import VirtualDevices
import EmulatorControl
import Foundation

/// An HTTP v1 `message` made into the APNs request FCM sends for it.
///
/// The rules, from FCM's reference documentation (the `Message`, `Notification` and `ApnsConfig` resources and the
/// error-code table):
/// - the target is `token` (firebase-admin 7 sends `fid`, the same registration token); `topic` and `condition`
///   are refused here, as the emulator keeps no topic subscriptions;
/// - `notification.title`/`body` become `aps.alert.title`/`body`; `apns.payload` is sent as the APNs payload and
///   overrides them (its `aps.alert` keys win), its other keys go beside `aps`;
/// - `data` values must be strings, and keys `from`, `gcm…` and `google…` are FCM's own; data keys go beside `aps`;
/// - an image (`apns.fcm_options.image`, else `notification.image`) sets `mutable-content: 1` and goes in
///   `fcm_options.image` for the Firebase service extension helper to download;
/// - `apns.headers` starting `apns-` are passed as they are (`apns-topic` is the app's); `apns-priority` defaults to
///   10 (5 for a background push) and `apns-expiration` to 30 days;
/// - FCM adds `gcm.message_id`.
/// A message with nothing to show and no `content-available` is FCM data the SDK takes over FCM's own channel while
/// the app runs: no APNs push is made of it.
package enum FCMv1Translator {
    package static func translate(_ message: JSONNode, projectNumber: UInt64, messageId: String, nowSeconds: Int64)
        throws(FCMError) -> Result<RelayedPush, NotRelayed>
    {
        guard message.kind == .object else { throw .invalid("Invalid value at 'message' (type.googleapis.com/google.firebase.fcm.v1.Message)") }
        let targets = ["token", "fid", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count == 1, let targetName = targets.first else {
            throw .invalid(targets.isEmpty ? "Recipient of the message is not set." : "Exactly one of token, fid, topic or condition must be set.")
        }
        guard targetName == "token" || targetName == "fid" else {
            throw .invalid("The emulator delivers to registration tokens only: \(targetName) messages are not modelled.")
        }
        guard let text = try message.string(targetName, at: "message") else { throw .invalid("Recipient of the message is not set.") }
        let token = try FCMDevice.resolve(text, projectNumber: projectNumber)

        var builder = APNsPayloadBuilder()
        let notification = try message.object("notification", at: "message")
        if let notification {
            if let title = try notification.string("title", at: "message.notification") { builder.alert["title"] = title }
            if let body = try notification.string("body", at: "message.notification") { builder.alert["body"] = body }
        }
        if let data = try message.object("data", at: "message") {
            for (index, key) in data.keys.enumerated() {
                guard let value = data[key]?.string else {
                    throw .invalid("Invalid value at 'message.data[\(index)].value' (TYPE_STRING), \(data[key]?.description ?? "null")")
                }
                try FCMDataKeys.check(key)
                builder.custom[key] = value
            }
        }
        let apns = try message.object("apns", at: "message")
        var headers: [(name: String, value: String)] = []
        if let given = try apns?.object("headers", at: "message.apns") {
            for key in given.keys {
                guard let value = given[key]?.string else {
                    throw .invalid("Invalid value at 'message.apns.headers[\(key)]' (TYPE_STRING), \(given[key]?.description ?? "null")")
                }
                headers.append((key.lowercased(), value))
            }
        }
        if let payload = try apns?.object("payload", at: "message.apns") {
            for key in payload.keys where key != "aps" { builder.custom[key] = payload[key]?.foundation }
            if let aps = payload["aps"] {
                guard let fields = aps.foundation as? [String: Any] else {
                    throw .invalid("Invalid value at 'message.apns.payload.aps': an object is expected, got \(aps.description)")
                }
                builder.merge(aps: fields)
            }
        }
        let apnsImage = try apns?.object("fcm_options", at: "message.apns")?.string("image", at: "message.apns.fcm_options")
        let notificationImage = try notification?.string("image", at: "message.notification")
        if let image = apnsImage ?? notificationImage {
            builder.aps["mutable-content"] = 1
            builder.custom["fcm_options"] = ["image": image]
        }
        guard builder.hasVisibleContent || builder.contentAvailable else {
            return .failure(NotRelayed(reason: "a message with no notification (no alert, badge or sound) and no content-available is"
                                       + " FCM data for the SDK's own connection while the app runs; FCM makes no APNs push of it"))
        }
        builder.custom["gcm.message_id"] = messageId
        return .success(FCMDevice.push(to: token, payload: builder, headers: headers, nowSeconds: nowSeconds))
    }
}
