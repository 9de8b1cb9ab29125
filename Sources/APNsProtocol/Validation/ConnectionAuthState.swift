/// Per-connection auth state carried between requests: the provider-token rules and whether a valid token
/// was seen (for "one stream until authenticated").
public struct ConnectionAuthState: Sendable {
    public var tokenRules = ProviderTokenRules()
    /// Verdict of `tokenRules.currentToken`, so a repeated token costs a string compare only.
    var currentVerdict: (ProviderToken, VerificationKey)?
    /// Set once any request carried a valid token (or the connection uses a certificate).
    public var authenticated = false

    public init() {}
}
