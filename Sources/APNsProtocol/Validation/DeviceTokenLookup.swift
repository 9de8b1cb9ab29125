/// What validation needs to know about a device token the emulator issued.
public struct DeviceTokenInfo: Sendable, Equatable {
    public var bundleId: String
    public var environment: APNsEnvironment
    /// When the app was uninstalled (410 Unregistered with this timestamp).
    public var unregisteredAt: Int64?
    /// When the token expired (410 ExpiredToken with this timestamp).
    public var expiredAt: Int64?

    public init(bundleId: String, environment: APNsEnvironment, unregisteredAt: Int64? = nil, expiredAt: Int64? = nil) {
        self.bundleId = bundleId
        self.environment = environment
        self.unregisteredAt = unregisteredAt
        self.expiredAt = expiredAt
    }
}

/// Finds device tokens (lowercase hex); the emulator's token registry implements it.
/// Class-bound for the same reason as `VerificationKeyLookup`.
public protocol DeviceTokenLookup: AnyObject, Sendable {
    func deviceToken(_ token: String) -> DeviceTokenInfo?
    /// Changes whenever any token's record changes, so a connection may reuse its last lookup while it
    /// stays the same (a sender usually pushes to the same few tokens; the lookup takes a lock and a hash).
    var generation: UInt64 { get }
}
