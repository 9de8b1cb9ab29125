import APNsEmulator
import APNsProtocol

/// Device registration against the emulator's own token registry: a token a device gets is one the
/// APNs listeners accept, for that app and environment only.
final class RegistryTokenRegistrar: TokenRegistrar {
    let tokens: TokenRegistry

    init(tokens: TokenRegistry) {
        self.tokens = tokens
    }

    func issueToken(bundleId: String, environment: APNsEnvironment, now: Millis) throws -> String {
        try tokens.issue(bundleId: bundleId, environment: environment, kind: .app, now: now).token
    }

    func unregister(token: String, at: Millis) throws {
        _ = try tokens.unregister(token, at: at)
    }

    func isRegistered(_ token: String, bundleId: String) -> Bool {
        guard let record = tokens.lookup(token) else { return false }
        return record.bundleId == bundleId && record.unregisteredAt == nil && record.expiredAt == nil
    }
}
