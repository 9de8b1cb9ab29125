import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// A OneSignal app as the front door knows it: its REST API key, the iOS app it sends to and the APNs auth key
/// uploaded to it.
package struct OneSignalApp: Sendable {
    package var appId: String
    package var restApiKey: String
    package var bundleId: String
    package var apnsKeyId: String
    package var apnsTeamId: String
    package var apnsKey: PrivateKey

    package init(appId: String, restApiKey: String, bundleId: String, apnsKeyId: String, apnsTeamId: String, apnsKey: PrivateKey) {
        self.appId = appId
        self.restApiKey = restApiKey
        self.bundleId = bundleId
        self.apnsKeyId = apnsKeyId
        self.apnsTeamId = apnsTeamId
        self.apnsKey = apnsKey
    }
}
