import EmulatorControl
import Foundation

/// A OneSignal error answer: `{"errors": [message]}`.
package struct OneSignalError: Error, Sendable {
    package var status: Int
    package var message: String
    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
    var body: [UInt8] { JSONText.bytes(["errors": [message]]) }
}
