import APNsEmulator
import VirtualDevices
import EmulatorControl
import Foundation

/// What both FCM APIs share: reading a registration token and making the APNs request for it.
enum FCMDevice {
    static func resolve(_ text: String, projectNumber: UInt64) throws(FCMError) -> FCMRegistrationToken {
        guard let token = FCMRegistrationToken(text: text) else {
            throw FCMError(.invalidArgument, "The registration token is not a valid FCM registration token")
        }
        guard token.projectNumber == projectNumber else {
            throw FCMError(.senderIdMismatch, "SenderId mismatch")
        }
        return token
    }

    /// `headers` as the sender gave them, completed with FCM's defaults and the app's topic.
    static func push(to token: FCMRegistrationToken, payload: APNsPayloadBuilder, headers given: [(name: String, value: String)],
                     nowSeconds: Int64) -> RelayedPush {
        var headers = given.filter { $0.name.hasPrefix("apns-") && $0.name != "apns-topic" }
        func add(_ name: String, _ value: @autoclosure () -> String) {
            if !headers.contains(where: { $0.name == name }) { headers.append((name, value())) }
        }
        add("apns-push-type", payload.inferredPushType)
        // 10 unless the push is a background one, which Apple requires at 5 (as FCM sends data messages: normal).
        add("apns-priority", headers.first { $0.name == "apns-push-type" }?.value == "background" ? "5" : "10")
        add("apns-expiration", String(nowSeconds + 30 * 86_400))
        headers.append(("apns-topic", token.bundleId))
        return RelayedPush(apnsToken: token.apnsToken, sandbox: token.sandbox, headers: headers, payload: payload.bytes)
    }
}
