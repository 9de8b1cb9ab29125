import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

package struct FrontDoorSetupError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}
