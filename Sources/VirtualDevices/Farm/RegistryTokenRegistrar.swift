import APNsEmulator
import APNsProtocol

/// Device registration against the emulator's own token registry: a token a device gets is one the
/// APNs listeners accept, for that app and environment only.
struct RegistryTokenRegistrar: TokenRegistrar {
    let tokens: TokenRegistry

    func issueToken(bundleId: String, environment: APNsEnvironment, now: Millis) throws -> String {
        try tokens.issue(bundleId: bundleId, environment: environment, kind: .app, now: now).token
    }

    func unregister(token: String, at: Millis) {
        // A store failure leaves the in-memory registry updated; the device model must go on regardless.
        _ = try? tokens.unregister(token, at: at)
    }
}
