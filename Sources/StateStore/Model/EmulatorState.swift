import APNsProtocol

/// Everything that persists across restarts and moves between instances (export/import).
public struct EmulatorState: Sendable, Codable, Equatable {
    /// Format version, so an older emulator refuses a newer snapshot instead of misreading it.
    public var version: Int
    public var keys: [ProviderKeyRecord]
    public var tokens: [DeviceTokenRecord]
    public var faults: [FaultRule]

    public static let currentVersion = 1

    public init(keys: [ProviderKeyRecord] = [], tokens: [DeviceTokenRecord] = [], faults: [FaultRule] = []) {
        self.version = Self.currentVersion
        self.keys = keys
        self.tokens = tokens
        self.faults = faults
    }
}
