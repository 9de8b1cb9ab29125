import EmulatorControl
import Foundation

/// A message the provider accepted but would not hand to APNs, and why (shown in the message log).
package struct NotRelayed: Error, Sendable {
    package var reason: String
    package var notes: [String] = []
}
