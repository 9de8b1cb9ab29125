import APNsEmulator
import APNsProtocol

/// Device registration against the emulator's own token registry: a token a device gets is one the
/// APNs listeners accept, for that app and environment only.
///
/// Each shard of the farm has its own: the tokens it issues name that shard (`DeviceShards.shard(ofToken:)`), so a
/// push finds the shard of the device owning its token from the token alone.
final class RegistryTokenRegistrar: TokenRegistrar {
    let tokens: TokenRegistry
    let shard: Int
    let shards: DeviceShards

    init(tokens: TokenRegistry, shard: Int, of shards: DeviceShards) {
        self.tokens = tokens
        self.shard = shard
        self.shards = shards
    }

    func issueToken(bundleId: String, environment: APNsEnvironment, now: Millis) throws -> String {
        try tokens.issue(bundleId: bundleId, environment: environment, kind: .app, now: now, onVirtualDevice: true,
                         firstByte: { [shards, shard] in shards.shard(ofFirstByte: $0) == shard }).token
    }

    func unregister(token: String, at: Millis) throws {
        _ = try tokens.unregister(token, at: at)
    }

    func isRegistered(_ token: String, bundleId: String) -> Bool {
        guard let record = tokens.lookup(token) else { return false }
        return record.bundleId == bundleId && record.unregisteredAt == nil && record.expiredAt == nil
    }
}
