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

/// One device's push subscription, as the OneSignal SDK registers it: its APNs token, the user it was logged in
/// as (`external_id`), and the badge count OneSignal keeps for `ios_badgeType: Increase`.
package struct OneSignalSubscription: Sendable, Encodable {
    package var id: String
    package var appId: String
    package var apnsToken: String
    package var environment: String
    package var externalId: String?
    package var badgeCount: Int64
}

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

/// The apps and their subscriptions.
package final class OneSignalApps: Sendable {
    private struct State {
        var apps: [String: OneSignalApp] = [:]
        var subscriptions: [String: OneSignalSubscription] = [:]
        var order: [String] = []
        /// The badge count OneSignal keeps, by subscription id (registered ones and those of virtual apps).
        var badges: [String: Int64] = [:]
    }

    /// Subscriptions held at once; a registration past it is refused (control API 409) rather than growing memory.
    static let maxSubscriptions = 100_000
    private let state = Mutex(State())
    private let initial: [OneSignalApp]
    /// The subscriptions the OneSignal SDK of virtual apps registered: (app id, subscription).
    private let hosted: @Sendable () -> [OneSignalSubscription]

    package init(_ apps: [OneSignalApp], hosted: @escaping @Sendable () -> [OneSignalSubscription] = { [] }) {
        initial = apps
        self.hosted = hosted
        reset()
    }

    package func reset() {
        let initial = self.initial
        state.withLock { s in
            s = State()
            for a in initial { s.apps[a.appId] = a }
        }
    }

    package func put(_ app: OneSignalApp) { state.withLock { $0.apps[app.appId] = app } }
    package func app(_ id: String) -> OneSignalApp? { state.withLock { $0.apps[id] } }
    package var allApps: [OneSignalApp] { state.withLock { $0.apps.values.sorted { $0.appId < $1.appId } } }

    /// Registers a subscription; nil when the table is full.
    package func subscribe(appId: String, apnsToken: String, sandbox: Bool, externalId: String?) -> OneSignalSubscription? {
        state.withLock { s in
            guard s.subscriptions.count < Self.maxSubscriptions else { return nil }
            let sub = OneSignalSubscription(id: UUID().uuidString.lowercased(), appId: appId, apnsToken: apnsToken.lowercased(),
                                            environment: sandbox ? "sandbox" : "production", externalId: externalId, badgeCount: 0)
            s.subscriptions[sub.id] = sub
            s.order.append(sub.id)
            return sub
        }
    }

    package func subscription(_ id: String) -> OneSignalSubscription? {
        let id = id.lowercased()
        return all().first { $0.id == id }
    }

    /// Registered subscriptions, then those of virtual apps, each with the badge count kept for it.
    package func all() -> [OneSignalSubscription] {
        let hosted = self.hosted()
        return state.withLock { s in
            (s.order.compactMap { s.subscriptions[$0] } + hosted).map { sub in
                var sub = sub
                sub.badgeCount = s.badges[sub.id] ?? 0
                return sub
            }
        }
    }

    package func subscriptions(of appId: String) -> [OneSignalSubscription] { all().filter { $0.appId == appId } }

    func setBadge(_ count: Int64, of id: String) {
        state.withLock { $0.badges[id] = count }
    }
}
