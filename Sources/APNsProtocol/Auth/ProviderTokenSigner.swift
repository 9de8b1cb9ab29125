import OpenSSLSupport

/// Mints APNs provider tokens: the compact ES256 JWS a provider sends as `authorization: bearer <token>`.
///
/// ### Overview
/// A provider token is three base64url segments without padding (RFC 7515 §7.1, RFC 7518 §3.4):
///
///     base64url({"alg":"ES256","kid":KEYID}) . base64url({"iss":TEAMID,"iat":N}) . base64url(r || s)
///
/// The signature is ECDSA P-256 over SHA-256 of the ASCII `header.claims`, in JOSE's raw 64-byte form. This is
/// the client side of what the emulator verifies; `apns-emulator token` and `send` use it, and tests use it to
/// produce tokens the verifier must accept.
///
/// ### Implementation
/// The JSON is written by hand rather than by `JSONEncoder` so the member order is exactly Apple's example
/// (`alg` before `kid`, `iss` before `iat`) and no escaping is ever needed: both ids are checked to be 10
/// ASCII letters or digits, the shape of every id Apple issues, before they are placed in a string.
public enum ProviderTokenSigner {
    /// Length of Apple's key ids (`kid`) and team ids (`iss`).
    public static let identifierLength = 10

    /// Signs a provider token.
    ///
    /// - Parameters:
    ///   - privateKey: The P-256 key from the `.p8` file Apple issued for `keyId`.
    ///   - keyId: The key's 10-character id, sent as the header's `kid`.
    ///   - teamId: The 10-character team id, sent as the claim `iss`.
    ///   - issuedAt: Seconds since the epoch, sent as the integer claim `iat`.
    /// - Returns: The compact JWS, ready to follow `bearer `.
    /// - Throws: `SigningError` for an id of the wrong shape or a key OpenSSL cannot sign with.
    public static func makeToken(privateKey: PrivateKey, keyId: String, teamId: String, issuedAt: Int64) throws
        -> String
    {
        try checkIdentifier(keyId, role: .keyId)
        try checkIdentifier(teamId, role: .teamId)
        let header = #"{"alg":"ES256","kid":"\#(keyId)"}"#
        let claims = #"{"iss":"\#(teamId)","iat":\#(issuedAt)}"#
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature: [UInt8]
        do {
            signature = try privateKey.signES256(Array(signingInput.utf8))
        } catch {
            throw SigningError(.signatureFailed, detail: "\(error)")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Base64url without padding (RFC 7515 §2), the alphabet and form every JWS segment uses.
    ///
    /// Forwards to `Base64URL.encode`, the encoder whose decoder the verifier uses, so minting and verifying share
    /// one alphabet table; public for tests and tools that build token segments by hand.
    ///
    /// - Parameter bytes: The bytes to encode.
    public static func base64URL(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }

    /// Apple's ids are 10 uppercase letters or digits; lowercase is allowed too since it cannot break the JSON,
    /// but anything else (quotes, spaces, a pasted file name) is a mistake worth stopping before signing.
    private static func checkIdentifier(_ identifier: String, role: SigningError.Role) throws {
        let isAlphanumeric = identifier.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
        guard isAlphanumeric, identifier.utf8.count == identifierLength else {
            throw SigningError(.badIdentifier, role: role, detail: identifier)
        }
    }
}

extension ProviderTokenSigner {
    /// Why a token could not be signed.
    ///
    /// A struct with a private code, so new failure kinds do not break callers that switch over it.
    public struct SigningError: Error, Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Code: String, Sendable, Hashable {
            case badIdentifier
            case signatureFailed
        }

        /// Which id was wrong, for the message.
        fileprivate enum Role: String, Sendable, Hashable {
            case keyId = "key id"
            case teamId = "team id"
        }

        private var code: Code
        private var role: Role?
        private var detail: String

        fileprivate init(_ code: Code, role: Role? = nil, detail: String) {
            self.code = code
            self.role = role
            self.detail = detail
        }

        /// The id was not 10 ASCII letters or digits.
        public static let badIdentifier = SigningError(.badIdentifier, detail: "")
        /// OpenSSL refused to sign (for example, a key that is not P-256).
        public static let signatureFailed = SigningError(.signatureFailed, detail: "")

        /// The kind of failure without its payload, safe as a metrics label or for comparison in tests.
        public var shortDescription: String { "SigningError.\(code.rawValue)" }

        /// Whether `self` is the same kind of failure as `other`, ignoring which id or what detail.
        ///
        /// - Parameter other: One of the static kinds, e.g. `.badIdentifier`.
        public func isKind(of other: SigningError) -> Bool { code == other.code }

        public var description: String {
            switch code {
            case .badIdentifier:
                let name = role?.rawValue ?? "id"
                return "the \(name) '\(detail)' must be exactly \(ProviderTokenSigner.identifierLength) ASCII "
                    + "letters or digits, like the ids Apple issues"
            case .signatureFailed:
                return "could not sign the provider token: \(detail)"
            }
        }
    }
}
