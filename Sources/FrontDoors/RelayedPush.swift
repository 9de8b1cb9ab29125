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

    package init(apnsToken: String, sandbox: Bool, headers: [(name: String, value: String)], payload: [UInt8],
                 notes: [String] = []) {
        self.apnsToken = apnsToken
        self.sandbox = sandbox
        self.headers = headers
        self.payload = payload
        self.notes = notes
    }

    package func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}
