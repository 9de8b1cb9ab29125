import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// A Firebase project as the FCM front door knows it: who may send (service accounts, the legacy server key) and
/// the APNs auth key uploaded to it, with which FCM signs its requests to APNs.
package struct FCMProject: Sendable {
    package var projectId: String
    /// The sender id registration tokens are bound to.
    package var projectNumber: UInt64
    /// Service-account e-mail → the public half of its key (the OAuth assertion's signer).
    package var serviceAccounts: [String: PublicKey]
    /// The legacy API's server key (`Authorization: key=…`), if any.
    package var serverKey: String?
    package var apnsKeyId: String
    package var apnsTeamId: String
    package var apnsKey: PrivateKey

    package init(projectId: String, projectNumber: UInt64, serviceAccounts: [String: PublicKey], serverKey: String?,
                 apnsKeyId: String, apnsTeamId: String, apnsKey: PrivateKey) {
        self.projectId = projectId
        self.projectNumber = projectNumber
        self.serviceAccounts = serviceAccounts
        self.serverKey = serverKey
        self.apnsKeyId = apnsKeyId
        self.apnsTeamId = apnsTeamId
        self.apnsKey = apnsKey
    }
}
