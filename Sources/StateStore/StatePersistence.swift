import APNsProtocol

/// Where registries write through their changes so they survive a restart.
///
/// Calls come from any thread, after the registry's own lock was released; implementations serialise
/// themselves. A failing write is reported (the control API answers 500) but never half-applies in memory:
/// registries persist first and change memory only on success.
public protocol StatePersistence: Sendable {
    /// Everything stored, read once at start.
    func load() throws -> EmulatorState
    func upsertKey(_ key: ProviderKeyRecord) throws
    func deleteKey(keyId: String) throws
    func upsertToken(_ token: DeviceTokenRecord) throws
    func deleteToken(_ token: String) throws
    func upsertFault(_ fault: FaultRule) throws
    func deleteFault(id: String) throws
    /// Replaces everything in one transaction (state import, reset).
    func replaceAll(with state: EmulatorState) throws
}

/// `--ephemeral`: nothing is stored.
public struct NoPersistence: StatePersistence {
    public init() {}
    public func load() throws -> EmulatorState { EmulatorState() }
    public func upsertKey(_ key: ProviderKeyRecord) throws {}
    public func deleteKey(keyId: String) throws {}
    public func upsertToken(_ token: DeviceTokenRecord) throws {}
    public func deleteToken(_ token: String) throws {}
    public func upsertFault(_ fault: FaultRule) throws {}
    public func deleteFault(id: String) throws {}
    public func replaceAll(with state: EmulatorState) throws {}
}
