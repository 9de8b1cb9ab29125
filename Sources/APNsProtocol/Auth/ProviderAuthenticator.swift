/// The authentication step shared by device pushes, broadcasts and channel management: the connection's
/// client certificate, or the request's provider token under the per-connection rules.
enum ProviderAuthenticator {
    /// Returns nil when the request is authenticated, or the reason it is not.
    /// - Parameters:
    ///   - authorization: the `authorization` header (ignored for certificate connections, as Apple does).
    static func authenticate(authorization: String?, context: ValidationContext, state: inout ConnectionAuthState,
                             summary: inout RequestSummary) -> APNsReason? {
        switch context.auth {
        case .certificate(let cert):
            guard cert.trusted, cert.currentlyValid, cert.bundleId != nil else { return .badCertificate }
            guard cert.environments.contains(context.environment) else { return .badCertificateEnvironment }
            state.authenticated = true
            return nil
        case .token:
            guard let value = authorization else { return .missingProviderToken }
            guard value.count > 7, value.prefix(7).lowercased() == "bearer " else {
                summary.authDetail = "authorization is not 'bearer <JWT>'"
                return .missingProviderToken
            }
            let compact = String(value.dropFirst(7))
            let verdict: (ProviderToken, VerificationKey)
            if let current = state.tokenRules.currentToken, current == compact, let known = state.currentVerdict {
                // The connection's current token: its signature was checked when it was first seen.
                verdict = known
            } else {
                switch context.verifier.verify(compact, keys: context.keys, acceptDER: context.policy.acceptDEREncodedSignatures) {
                case .invalid(let detail):
                    summary.authDetail = detail
                    return .invalidProviderToken
                case .valid(let t, let k):
                    verdict = (t, k)
                }
            }
            let (parsed, key) = verdict
            summary.teamId = parsed.teamId
            summary.keyId = parsed.keyId
            let nowSeconds = context.now / 1000
            if parsed.issuedAt > nowSeconds + context.policy.futureIssuedAtToleranceSeconds {
                summary.authDetail = "iat \(parsed.issuedAt) is in the future"
                return .invalidProviderToken
            }
            if nowSeconds - parsed.issuedAt > context.policy.providerTokenMaxAgeSeconds {
                summary.authDetail = "iat \(parsed.issuedAt) is more than \(context.policy.providerTokenMaxAgeSeconds) s old"
                return .expiredProviderToken
            }
            if let env = key.environment, env != context.environment {
                summary.authDetail = "key \(key.keyId) is restricted to \(env.rawValue)"
                return .badEnvironmentKeyIdInToken
            }
            switch state.tokenRules.present(compact, token: parsed, key: key, now: context.now,
                                            refreshIntervalMillis: context.policy.providerTokenRefreshIntervalSeconds * 1000) {
            case .reject(let reason):
                summary.authDetail = "connection rule: \(reason.rawValue)"
                return reason
            case .accept:
                state.currentVerdict = verdict
                state.authenticated = true
                return nil
            }
        }
    }

    /// A topic-specific key used for an app outside its topic list (Decision: InvalidProviderToken).
    static func topicKeyRejection(bundleId: String, context: ValidationContext, state: ConnectionAuthState,
                                  summary: inout RequestSummary) -> APNsReason? {
        guard case .token = context.auth, let key = state.currentVerdict?.1, key.kind == .topic,
              !key.topics.contains(bundleId) else { return nil }
        summary.authDetail = "topic key \(key.keyId) does not cover \(bundleId)"
        return context.policy.topicKeyOutsideTopicsReason
    }
}
