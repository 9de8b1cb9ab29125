import Foundation
import WireBytes

/// The authentication step shared by device pushes, broadcasts and channel management: the connection's
/// client certificate, or the request's provider token under the per-connection rules.
enum ProviderAuthenticator {
    /// Returns nil when the request is authenticated, or the reason it is not.
    /// - Parameters:
    ///   - authorizationIndex: where the `authorization` header is in `headers` (ignored for certificate
    ///     connections, as Apple does).
    static func authenticate(headers: borrowing HeaderFields, authorizationIndex: Int?, context: ValidationContext,
                             state: inout ConnectionAuthState, summary: inout RequestSummary) -> APNsReason? {
        switch context.auth {
        case .certificate(let cert):
            guard cert.trusted, cert.currentlyValid, cert.bundleId != nil else { return .badCertificate }
            guard cert.environments.contains(context.environment) else { return .badCertificateEnvironment }
            state.authenticated = true
            return nil
        case .token:
            guard let index = authorizationIndex else { return .missingProviderToken }
            // Fast path: the connection's current token, compared as bytes (no String, no hashing).
            if let known = state.currentVerdict, known.keysGeneration == context.keys.generation {
                let same = headers.withValue(at: index) { v -> Bool in
                    guard v.count > 7, hasBearerPrefix(v), v.count - 7 == state.currentTokenBytes.count else { return false }
                    return state.currentTokenBytes.withUnsafeBytes { memcmp($0.baseAddress!, v.baseAddress! + 7, v.count - 7) == 0 }
                }
                if same {
                    return checkTimeAndEnvironment(teamId: known.token.teamId, keyId: known.token.keyId,
                                                   issuedAt: known.token.issuedAt, key: known.key, context: context,
                                                   summary: &summary)
                }
            }
            let value = headers.value(at: index)
            guard value.utf8.count > 7, withUTF8Bytes(value, hasBearerPrefix) else {
                summary.authDetail = "authorization is not 'bearer <JWT>'"
                return .missingProviderToken
            }
            let compact = String(value.dropFirst(7))
            let keysGeneration = context.keys.generation
            let verdict: (ProviderToken, VerificationKey)
            switch context.verifier.verify(compact, keys: context.keys, acceptDER: context.policy.acceptDEREncodedSignatures) {
            case .invalid(let detail):
                summary.authDetail = detail
                return .invalidProviderToken
            case .valid(let t, let k):
                verdict = (t, k)
            }
            if let reason = checkTimeAndEnvironment(teamId: verdict.0.teamId, keyId: verdict.0.keyId,
                                                    issuedAt: verdict.0.issuedAt, key: verdict.1, context: context,
                                                    summary: &summary) {
                return reason
            }
            switch state.tokenRules.present(compact, token: verdict.0, key: verdict.1, now: context.now,
                                            refreshIntervalMillis: context.policy.providerTokenRefreshIntervalSeconds * 1000) {
            case .reject(let reason):
                summary.authDetail = "connection rule: \(reason.rawValue)"
                return reason
            case .accept(let isNew):
                if isNew { state.tokenUpdates &+= 1 }
                if isNew || state.currentVerdict?.keysGeneration != keysGeneration {
                    state.currentVerdict = CurrentVerdict(token: verdict.0, key: verdict.1, keysGeneration: keysGeneration)
                    state.currentTokenBytes = Array(compact.utf8)
                }
                state.authenticated = true
                return nil
            }
        }
    }

    /// The rules that depend on time and on the request's environment, applied to every request.
    private static func checkTimeAndEnvironment(teamId: String, keyId: String, issuedAt: Int64, key: VerificationKey,
                                                context: ValidationContext,
                                                summary: inout RequestSummary) -> APNsReason? {
        summary.teamId = teamId
        summary.keyId = keyId
        let nowSeconds = context.now / 1000
        if issuedAt > nowSeconds + context.policy.futureIssuedAtToleranceSeconds {
            summary.authDetail = "iat \(issuedAt) is in the future"
            return .invalidProviderToken
        }
        // Compared without `nowSeconds - issuedAt`, which overflows for an iat near Int64.min.
        if issuedAt < nowSeconds - context.policy.providerTokenMaxAgeSeconds {
            summary.authDetail = "iat \(issuedAt) is more than \(context.policy.providerTokenMaxAgeSeconds) s old"
            return .expiredProviderToken
        }
        if let env = key.environment, env != context.environment {
            summary.authDetail = "key \(key.keyId) is restricted to \(env.rawValue)"
            return .badEnvironmentKeyIdInToken
        }
        return nil
    }

    /// "bearer " in any case.
    private static func hasBearerPrefix(_ v: UnsafeRawBufferPointer) -> Bool {
        guard v.count >= 7 else { return false }
        let word: StaticString = "bearer "
        for i in 0..<7 where v[i] | 0x20 != word.utf8Start[i] { return false }
        return true
    }

    /// A topic-specific key used for an app outside its topic list (Decision: InvalidProviderToken).
    static func topicKeyRejection(bundleId: String, context: ValidationContext, state: ConnectionAuthState,
                                  summary: inout RequestSummary) -> APNsReason? {
        guard case .token = context.auth, let key = state.currentVerdict?.key, key.kind == .topic,
              !key.topics.contains(bundleId) else { return nil }
        summary.authDetail = "topic key \(key.keyId) does not cover \(bundleId)"
        return context.policy.topicKeyOutsideTopicsReason
    }

    /// A token-authenticated push to a bundle id that other teams declared theirs, and the signing key's team
    /// did not (`foreignTeamTopicReason`); nil when the key's team may push to it.
    static func foreignTeamRejection(bundleId: String, context: ValidationContext, state: inout ConnectionAuthState,
                                     summary: inout RequestSummary) -> APNsReason? {
        guard case .token = context.auth, let verdict = state.currentVerdict else { return nil }
        let team = verdict.key.teamId
        let owners: String?
        if let last = state.lastOwnership, last.keysGeneration == verdict.keysGeneration, last.bundleId == bundleId,
           last.teamId == team {
            owners = last.foreignOwners
        } else {
            let teams = context.keys.teamsOwning(bundleId)
            owners = teams.flatMap { $0.contains(team) ? nil : $0.sorted().joined(separator: ", ") }
            state.lastOwnership = (bundleId, team, verdict.keysGeneration, owners)
        }
        guard let owners else { return nil }
        summary.authDetail = "\(bundleId) belongs to team \(owners), not to key \(verdict.key.keyId)'s team \(team)"
        return context.policy.foreignTeamTopicReason
    }
}
