import APNsEmulator
import VirtualDevices
import EmulatorControl
import Foundation

/// FCM's reserved data keys: `from`, and anything starting with `gcm` or `google`.
enum FCMDataKeys {
    static func check(_ key: String) throws(FCMError) {
        let lower = key.lowercased()
        if lower == "from" || lower.hasPrefix("gcm") || lower.hasPrefix("google") {
            throw .invalid("Invalid data payload key: \(key) (from, gcm… and google… are FCM's own keys)")
        }
    }
}
