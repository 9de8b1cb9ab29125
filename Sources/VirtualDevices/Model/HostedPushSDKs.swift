import APNsEmulator
import Foundation
import WireBytes

/// The push SDKs an app links besides the OS's own API: Firebase Messaging (its FCM registration token stands for
/// the APNs token), OneSignal (a push subscription for it) and the managed push SDK. Each comes into play once the app has a token.
public struct HostedPushSDKs: Sendable, Encodable, Equatable {
    /// Firebase Messaging, registered with this project (by its number, the sender id).
    public struct Firebase: Sendable, Encodable, Equatable {
        public var projectNumber: UInt64
        public init(projectNumber: UInt64 = HostedPushSDKs.sampleFirebaseProjectNumber) { self.projectNumber = projectNumber }

        enum CodingKeys: String, CodingKey { case projectNumber }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(String(projectNumber), forKey: .projectNumber)
        }
    }

    /// The OneSignal SDK of this OneSignal app, logged in as `externalId` (if any).
    public struct OneSignal: Sendable, Encodable, Equatable {
        public var appId: String
        public var externalId: String?
        public init(appId: String = HostedPushSDKs.sampleOneSignalAppId, externalId: String? = nil) {
            self.appId = appId
            self.externalId = externalId
        }
    }

    public var firebase: Firebase?
    public var oneSignal: OneSignal?
    /// The managed push SDK ("Kits").
    public var kits: KitsConfiguration?

    public init(firebase: Firebase? = nil, oneSignal: OneSignal? = nil, kits: KitsConfiguration? = nil) {
        self.firebase = firebase
        self.oneSignal = oneSignal
        self.kits = kits
    }

    /// The sample Firebase project's number and the sample OneSignal app (the front doors' defaults).
    public static let sampleFirebaseProjectNumber: UInt64 = 123_456_789_012
    public static let sampleOneSignalAppId = "a5a5a5a5-0000-4000-8000-00000000e1e1"

    /// The FCM registration token Firebase Messaging hands the app for `apnsToken`.
    package func fcmToken(bundleId: String, apnsToken: String?, sandbox: Bool) -> String? {
        guard let firebase, let apnsToken else { return nil }
        return FCMRegistrationToken(projectNumber: firebase.projectNumber, bundleId: bundleId, sandbox: sandbox,
                                    apnsToken: apnsToken).text
    }

    /// The id of the push subscription the OneSignal SDK registers for `apnsToken`: the same for the same app and
    /// token, so it survives restarts as OneSignal's does.
    package func oneSignalSubscriptionId(apnsToken: String?) -> String? {
        guard let oneSignal, let apnsToken else { return nil }
        return Self.subscriptionId(appId: oneSignal.appId, apnsToken: apnsToken)
    }

    package static func subscriptionId(appId: String, apnsToken: String) -> String {
        var bytes = Array((appId + ":" + apnsToken.lowercased()).utf8)
        let a = bytes.withUnsafeBufferPointer { Fingerprint.of(bytes: $0) }
        bytes.append(0x2F)
        let b = bytes.withUnsafeBufferPointer { Fingerprint.of(bytes: $0) }
        var raw: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { raw.append(UInt8(truncatingIfNeeded: a >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { raw.append(UInt8(truncatingIfNeeded: b >> UInt64(shift))) }
        raw[6] = raw[6] & 0x0F | 0x40  // version 4 layout, as OneSignal's ids look
        raw[8] = raw[8] & 0x3F | 0x80
        let hex = Hex.lowercase(raw)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(hex[hex.index(hex.startIndex, offsetBy: r.lowerBound)..<hex.index(hex.startIndex, offsetBy: r.upperBound)])
        }
        return parts.joined(separator: "-")
    }
}
