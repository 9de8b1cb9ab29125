import APNsProtocol
import EmulatorControl
import Foundation
import OpenSSLSupport

/// Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT bearer grant), as Google client libraries
/// call it from a service-account JSON's `token_uri`: the assertion is an RS256 JWT signed with the account's key,
/// whose `iss` is the account, `aud` the endpoint and `scope` what it asks for; it lives at most an hour.
struct GoogleTokenEndpoint {
    let projects: FCMProjects

    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let lifetimeSeconds: Int64 = 3600

    /// The answer's status and JSON body.
    func exchange(form body: [UInt8], nowSeconds: Int64) -> (status: Int, body: [UInt8]) {
        func failure(_ error: String, _ description: String) -> (Int, [UInt8]) {
            (400, JSONText.bytes(["error": error, "error_description": description]))
        }
        guard let form = FormBody(body) else {
            return failure("invalid_request", "The body is not a form (application/x-www-form-urlencoded) in UTF-8")
        }
        func field(_ name: String) -> String? { form.value(name) }
        guard let grant = field("grant_type") else { return failure("invalid_request", "Missing required parameter: grant_type") }
        guard grant == Self.grantType else { return failure("unsupported_grant_type", "Invalid grant_type: \(grant)") }
        guard let assertion = field("assertion") else { return failure("invalid_request", "Missing required parameter: assertion") }
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(Array(parts[0].utf8)),
              let claimBytes = Base64URL.decode(Array(parts[1].utf8)), let signature = Base64URL.decode(Array(parts[2].utf8)),
              case .success(let header) = JSONDocument.parse(headerBytes, budget: 1 << 20),
              case .success(let claims) = JSONDocument.parse(claimBytes, budget: 1 << 20)
        else { return failure("invalid_grant", "Invalid JWT: the assertion is not a compact JWS (three base64url JSON parts).") }
        guard header.value["alg"]?.string == "RS256" else {
            return failure("invalid_grant", "Invalid JWT: the algorithm must be RS256, got \(header.value["alg"]?.description ?? "none").")
        }
        let c = claims.value
        guard let issuer = c["iss"]?.string, case let memberships = projects.serviceAccount(issuer), !memberships.isEmpty else {
            return failure("invalid_grant", "Invalid grant: account not found")
        }
        let signingInput = Array(assertion.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        // The projects whose copy of the account's key made the signature.
        let projectIds = Set(memberships.filter { $0.key.verifyRS256(signature: signature, data: signingInput) }.map(\.projectId))
        guard !projectIds.isEmpty else { return failure("invalid_grant", "Invalid JWT Signature.") }
        guard let audience = c["aud"]?.string, audience.hasSuffix("/token") else {
            return failure("invalid_grant", "Invalid JWT: the aud claim must be the token endpoint (…/token).")
        }
        guard let iat = c["iat"]?.integer, let exp = c["exp"]?.integer, exp > iat, exp - iat <= Self.lifetimeSeconds,
              iat <= nowSeconds + 300, exp > nowSeconds
        else {
            return failure("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
                           + " Check your iat and exp values in the JWT claim.")
        }
        let scopes = Set((c["scope"]?.string ?? "").split(separator: " ").map(String.init))
        guard !scopes.isEmpty else { return failure("invalid_scope", "Empty or missing scope not allowed.") }
        let token = "ya29.emulator-" + (0..<24).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        projects.issue(token, projectIds: projectIds, scopes: scopes, expiresAt: nowSeconds + Self.lifetimeSeconds, now: nowSeconds)
        return (200, JSONText.bytes(["access_token": token, "expires_in": Self.lifetimeSeconds - 1, "token_type": "Bearer"]))
    }
}
