import APNsProtocol

/// What a device token is for: an app's remote notifications or a Live Activity (longer tokens).
public enum DeviceTokenKind: String, Sendable, Codable, CaseIterable, Hashable {
    case app
    case liveActivity = "live-activity"

    /// Bytes of a newly issued token: 32 for apps (today's size), longer for Live Activities, as Apple's
    /// "do not hard-code the size" warns.
    public var byteLength: Int {
        switch self {
        case .app: return 32
        case .liveActivity: return 80
        }
    }
}

/// A device token the emulator issued or was told about: one app on one device in one environment.
public struct DeviceTokenRecord: Sendable, Codable, Equatable, Hashable {
    /// Lowercase hex.
    public var token: String
    public var bundleId: String
    public var environment: APNsEnvironment
    public var kind: DeviceTokenKind
    public var createdAt: Millis
    /// Set when the app was uninstalled (or the test said so): later pushes get 410 Unregistered with it.
    public var unregisteredAt: Millis?
    /// Set when the token expired: later pushes get 410 ExpiredToken with it.
    public var expiredAt: Millis?
    /// The device that owns the token, once devices exist (issue: virtual devices).
    public var deviceId: String?
    /// With a shared store: the replica whose virtual device holds the token, where pushes to it are delivered.
    public var replica: String?

    public init(token: String, bundleId: String, environment: APNsEnvironment, kind: DeviceTokenKind = .app,
                createdAt: Millis, unregisteredAt: Millis? = nil, expiredAt: Millis? = nil, deviceId: String? = nil,
                replica: String? = nil) {
        self.token = token
        self.bundleId = bundleId
        self.environment = environment
        self.kind = kind
        self.createdAt = createdAt
        self.unregisteredAt = unregisteredAt
        self.expiredAt = expiredAt
        self.deviceId = deviceId
        self.replica = replica
    }
}
