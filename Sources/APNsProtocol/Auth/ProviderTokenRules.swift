/// The provider-token rules APNs applies per connection.
///
/// ```
///   unbound --first valid token--> bound(team, first key, current token, last new-token time)
///   bound --same token----------------------------> bound            (accept)
///   bound --other team----------------------------> bound            (InvalidProviderToken)
///   bound --key unrelated to the first key--------> bound            (UnrelatedKeyIdInToken)
///   bound --new token < refresh interval after----> bound            (TooManyProviderTokenUpdates)
///   bound --new token after the interval----------> bound(new token) (accept)
/// ```
/// Rejections leave the state unchanged. The interval counts from the previous *new* token, so a sender
/// that re-sends its token is never penalised, and one that signs per message on a fresh connection each
/// time (kalyke) is never refused.
public struct ProviderTokenRules: Sendable {
    private struct Binding: Sendable {
        var teamId: String
        var firstKey: VerificationKey
        var currentToken: String
        var lastNewTokenAt: Int64
    }

    private var binding: Binding?

    public enum Verdict: Equatable, Sendable {
        case accept(isNewToken: Bool)
        case reject(APNsReason)
    }

    public init() {}

    /// The team this connection is bound to, once a token was accepted.
    public var boundTeamId: String? { binding?.teamId }

    /// The token most recently accepted on this connection (the fast path compares against it).
    public var currentToken: String? { binding?.currentToken }

    /// Applies the rules to a token whose signature is already verified.
    /// - Parameters:
    ///   - refreshIntervalMillis: minimum time between two new tokens (Apple: 20 minutes).
    public mutating func present(_ compact: String, token: ProviderToken, key: VerificationKey, now: Int64,
                                 refreshIntervalMillis: Int64) -> Verdict {
        guard var b = binding else {
            binding = Binding(teamId: token.teamId, firstKey: key, currentToken: compact, lastNewTokenAt: now)
            return .accept(isNewToken: true)
        }
        if compact == b.currentToken { return .accept(isNewToken: false) }
        guard token.teamId == b.teamId else { return .reject(.invalidProviderToken) }
        guard key.isRelated(to: b.firstKey) else { return .reject(.unrelatedKeyIdInToken) }
        guard now - b.lastNewTokenAt >= refreshIntervalMillis else { return .reject(.tooManyProviderTokenUpdates) }
        b.currentToken = compact
        b.lastNewTokenAt = now
        binding = b
        return .accept(isNewToken: true)
    }
}
