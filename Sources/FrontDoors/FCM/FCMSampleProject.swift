import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// The sample project of the development set: its service account in `fcm-service-account.json`, the sample APNs
/// key `AuthKey_DEVKEY1234.p8`.
package enum FCMSampleProject {
    package static let fileName = "fcm-service-account.json"
    /// The sample project's id (its service-account JSON's `project_id`).
    package static let projectIdDefault = "apns-emulator-demo"
    package static let projectNumber = HostedPushSDKs.sampleFirebaseProjectNumber
    package static let serverKey = "AAAA-apns-emulator-sample-legacy-server-key"

    /// The project, or why it cannot be read from `certificatesDirectory`.
    package static func load(from certificatesDirectory: String) -> Result<FCMProject, FrontDoorSetupError> {
        let dir = URL(fileURLWithPath: certificatesDirectory)
        let file = dir.appendingPathComponent(fileName).path
        guard let data = FileManager.default.contents(atPath: file),
              let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let projectId = json["project_id"] as? String, let email = json["client_email"] as? String,
              let pem = json["private_key"] as? String, let account = try? PrivateKey(pem: pem)
        else { return .failure(FrontDoorSetupError("\(file): not a service-account JSON with project_id, client_email and private_key")) }
        let keyFile = dir.appendingPathComponent("AuthKey_DEVKEY1234.p8").path
        guard let keyText = FileManager.default.contents(atPath: keyFile), let apnsKey = try? PrivateKey(pem: String(decoding: keyText, as: UTF8.self))
        else { return .failure(FrontDoorSetupError("\(keyFile): cannot read the sample APNs key")) }
        return .success(FCMProject(projectId: projectId, projectNumber: projectNumber, serviceAccounts: [email: account.publicKey],
                                   serverKey: serverKey, apnsKeyId: "DEVKEY1234", apnsTeamId: "DEVTEAM123", apnsKey: apnsKey))
    }
}
