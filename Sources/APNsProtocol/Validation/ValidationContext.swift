/// Everything validation reads besides the request: the connection's environment and auth, the time, the
/// policy switches and the registries (through lookups, so this module stays free of I/O and state).
public struct ValidationContext: Sendable {
    public var environment: APNsEnvironment
    public var auth: ConnectionAuth
    /// Milliseconds since the epoch, from the emulator's (possibly virtual) clock.
    public var now: Int64
    public var policy: ValidationPolicy
    public var keys: any VerificationKeyLookup
    public var tokens: any DeviceTokenLookup
    public var verifier: ProviderTokenVerifier

    public init(environment: APNsEnvironment, auth: ConnectionAuth, now: Int64, policy: ValidationPolicy,
                keys: any VerificationKeyLookup, tokens: any DeviceTokenLookup, verifier: ProviderTokenVerifier) {
        self.environment = environment
        self.auth = auth
        self.now = now
        self.policy = policy
        self.keys = keys
        self.tokens = tokens
        self.verifier = verifier
    }
}
