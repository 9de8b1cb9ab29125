import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// One device's push subscription, as the OneSignal SDK registers it: its APNs token, the user it was logged in
/// as (`external_id`), and the badge count OneSignal keeps for `ios_badgeType: Increase`.
package struct OneSignalSubscription: Sendable, Encodable {
    package var id: String
    package var appId: String
    package var apnsToken: String
    package var environment: String
    package var externalId: String?
    package var badgeCount: Int64

    package init(id: String, appId: String, apnsToken: String, environment: String, externalId: String?, badgeCount: Int64) {
        self.id = id
        self.appId = appId
        self.apnsToken = apnsToken
        self.environment = environment
        self.externalId = externalId
        self.badgeCount = badgeCount
    }
}
