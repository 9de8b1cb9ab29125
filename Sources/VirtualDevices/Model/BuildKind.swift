import APNsProtocol

/// How an installed app was built and signed. It decides the `aps-environment` the app reads and in
/// which APNs environment its device token is valid.
///
/// | kind | `aps-environment` (signature) | GetProviderEnvironment | token valid in |
/// |---|---|---|---|
/// | development | development | ApnsSandbox (2) | sandbox |
/// | adHoc | production | Apns (1) | production |
/// | testFlight | production (no embedded profile on iOS) | Apns (1) | production |
/// | appStore | production (no embedded profile on iOS) | Apns (1) | production |
/// | simulator | development | ApnsSandbox (2) | (GetToken is Unavailable) |
/// | appClip | production (App Store) | Apns (1) | production; authorization starts Ephemeral |
public enum BuildKind: String, Sendable, Codable, CaseIterable {
    case development
    case adHoc
    case testFlight
    case appStore
    case simulator
    /// An App Clip: installed from the App Store, allowed ephemeral notifications from launch.
    case appClip

    /// The APNs environment a token issued to this build belongs to.
    public var tokenEnvironment: APNsEnvironment {
        switch self {
        case .development, .simulator: return .sandbox
        case .adHoc, .testFlight, .appStore, .appClip: return .production
        }
    }

    /// The environment the plugin reports. App Store and TestFlight installs carry no provisioning profile
    /// on iOS, so the plugin falls back to production (`Apns`) there whatever the signature says.
    public func providerEnvironment(on platform: Platform) -> ProviderEnvironment {
        if platform == .iOS && (self == .appStore || self == .testFlight || self == .appClip) { return .apns }
        return tokenEnvironment == .sandbox ? .apnsSandbox : .apns
    }
}
