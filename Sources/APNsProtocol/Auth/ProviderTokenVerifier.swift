import OpenSSLSupport
import Synchronization

/// Verifies provider tokens, each distinct token's signature once.
///
/// An ES256 verification costs ~130 µs; a sender reuses one token for up to an hour across thousands of
/// pushes, so the verdict is cached per token text until the token is too old to be accepted anyway.
/// The cached verdict holds the key object that checked it (a strong reference, compared by identity), so
/// replacing or removing the key invalidates it, for failed signatures as well as good ones.
public final class ProviderTokenVerifier: Sendable {
    public enum Verdict: Sendable {
        case valid(ProviderToken, VerificationKey)
        /// Always InvalidProviderToken; `detail` is for the journal.
        case invalid(detail: String)
    }

    private struct Entry {
        let token: ProviderToken?
        /// The key the signature was checked against; nil for tokens that did not even parse.
        let key: VerificationKey?
        let valid: Bool
        let detail: String
    }

    private let cache = Mutex<[String: Entry]>([:])
    private let capacity: Int
    private let stats = Mutex<(hits: Int, misses: Int)>((0, 0))

    public init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// Cache hits and misses so far (for metrics).
    public var hitsAndMisses: (hits: Int, misses: Int) { stats.withLock { $0 } }

    /// Parses and checks `compact` against the key it names. Time rules (iat) are not checked here.
    public func verify(_ compact: String, keys: some VerificationKeyLookup, acceptDER: Bool) -> Verdict {
        if let entry = cache.withLock({ $0[compact] }) {
            guard let token = entry.token else {
                stats.withLock { $0.hits += 1 }
                return .invalid(detail: entry.detail)
            }
            // Only while the registry still holds the very key that judged the signature.
            if let key = keys.verificationKey(for: token.keyId), key === entry.key {
                stats.withLock { $0.hits += 1 }
                return entry.valid ? .valid(token, key) : .invalid(detail: entry.detail)
            }
        }
        stats.withLock { $0.misses += 1 }
        let token: ProviderToken
        do {
            token = try ProviderToken(compact: compact.utf8)
        } catch {
            remember(compact, Entry(token: nil, key: nil, valid: false, detail: "malformed token: \(error)"))
            return .invalid(detail: "malformed token: \(error)")
        }
        guard let key = keys.verificationKey(for: token.keyId) else {
            // Not cached: the key may be registered a moment later.
            return .invalid(detail: "unknown key id \(token.keyId)")
        }
        guard token.teamId == key.teamId else {
            return .invalid(detail: "iss \(token.teamId) is not the team of key \(key.keyId) (\(key.teamId))")
        }
        guard token.verifySignature(with: key.publicKey, acceptDER: acceptDER) else {
            remember(compact, Entry(token: token, key: key, valid: false, detail: "signature does not verify with key \(key.keyId)"))
            return .invalid(detail: "signature does not verify with key \(key.keyId)")
        }
        remember(compact, Entry(token: token, key: key, valid: true, detail: ""))
        return .valid(token, key)
    }

    private func remember(_ compact: String, _ entry: Entry) {
        cache.withLock { c in
            // Tokens live an hour; a full cache is simply started over rather than aged entry by entry.
            if c.count >= capacity { c.removeAll(keepingCapacity: true) }
            c[compact] = entry
        }
    }
}
