/// A virtual iPhone or Mac: its configuration and the apps installed on it, in install order.
public struct VirtualDevice: Sendable {
    public internal(set) var configuration: DeviceConfiguration
    /// Installed apps by bundle id.
    var apps: [String: VirtualApp] = [:]
    /// Bundle ids in install order (listing order).
    var installOrder: [String] = []
    /// Its place in the farm's creation order (listings follow it across shards).
    var creationNumber = 0

    init(configuration: DeviceConfiguration) {
        self.configuration = configuration
    }

    public var id: String { configuration.id }
    public var installedApps: [VirtualApp] { installOrder.compactMap { apps[$0] } }
    public func app(_ bundleId: String) -> VirtualApp? { apps[bundleId] }
}
