/// A broadcast channel as validation needs it.
public struct ChannelInfo: Sendable, Equatable, Codable {
    public var bundleId: String
    public var environment: APNsEnvironment
    /// 0: no message storage; 1: the most recent message is stored for offline devices.
    public var messageStoragePolicy: Int
    public var pushType: String

    public init(bundleId: String, environment: APNsEnvironment, messageStoragePolicy: Int, pushType: String = "LiveActivity") {
        self.bundleId = bundleId
        self.environment = environment
        self.messageStoragePolicy = messageStoragePolicy
        self.pushType = pushType
    }
}

/// Finds broadcast channels and whether an app has the broadcast capability; the emulator implements it.
public protocol ChannelLookup: Sendable {
    func channel(_ id: String) -> ChannelInfo?
    func broadcastEnabled(bundleId: String) -> Bool
}
