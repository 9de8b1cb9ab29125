import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// The sample app of the development set: sends to `com.example.app` with the sample APNs key.
package enum OneSignalSampleApp {
    package static let appId = HostedPushSDKs.sampleOneSignalAppId
    package static let restApiKey = "os_v2_app_apns_emulator_sample_rest_api_key"

    package static func load(from certificatesDirectory: String) -> OneSignalApp? {
        let keyFile = URL(fileURLWithPath: certificatesDirectory).appendingPathComponent("AuthKey_DEVKEY1234.p8").path
        guard let text = FileManager.default.contents(atPath: keyFile), let key = try? PrivateKey(pem: String(decoding: text, as: UTF8.self))
        else { return nil }
        return OneSignalApp(appId: appId, restApiKey: restApiKey, bundleId: "com.example.app", apnsKeyId: "DEVKEY1234",
                            apnsTeamId: "DEVTEAM123", apnsKey: key)
    }
}
