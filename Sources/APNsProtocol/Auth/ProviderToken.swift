import Foundation
import OpenSSLSupport

/// A provider authentication token (JWT, ES256) as APNs reads it: header `alg`/`kid`, claims `iss`/`iat`.
///
/// Parsing checks structure only; the signature is checked by `verifySignature(with:)`. `iat` is accepted
/// as an integer, a float (apns2-up, pyapns_client) or a numeric string (kalyke), as real APNs does.
public struct ProviderToken: Sendable, Equatable {
    public let keyId: String
    public let teamId: String
    /// Seconds since the epoch.
    public let issuedAt: Int64
    /// `header.claims`, the bytes that were signed.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Why a token could not be read (all answered 403 InvalidProviderToken; the detail goes to the journal).
    public enum ParseError: Error, Equatable, Sendable {
        case notThreeParts, badBase64, headerNotJSON, claimsNotJSON, algorithmNotES256(String?),
             missingKeyId, missingIssuer, missingIssuedAt
    }

    /// Parses the compact serialization `header.claims.signature`.
    public init(compact: some Collection<UInt8>) throws(ParseError) {
        let bytes = Array(compact)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else { throw .notThreeParts }
        let h = bytes[..<dots[0]]
        let c = bytes[(dots[0] + 1)..<dots[1]]
        let s = bytes[(dots[1] + 1)...]
        guard let headerBytes = Base64URL.decode(h), let claimBytes = Base64URL.decode(c),
              let signature = Base64URL.decode(s) else { throw .badBase64 }
        guard let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any] else {
            throw .headerNotJSON
        }
        guard let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any] else {
            throw .claimsNotJSON
        }
        let alg = header["alg"] as? String
        guard alg == "ES256" else { throw .algorithmNotES256(alg) }
        guard let kid = header["kid"] as? String, !kid.isEmpty else { throw .missingKeyId }
        guard let iss = claims["iss"] as? String, !iss.isEmpty else { throw .missingIssuer }
        guard let iat = Self.seconds(claims["iat"]) else { throw .missingIssuedAt }
        self.keyId = kid
        self.teamId = iss
        self.issuedAt = iat
        self.signingInput = Array(bytes[..<dots[1]])
        self.signature = signature
    }

    /// Whole seconds from an integer, a float or a numeric string.
    private static func seconds(_ value: Any?) -> Int64? {
        switch value {
        case let n as NSNumber:
            // JSONSerialization gives NSNumber for ints, floats and (careful) booleans.
            let type = UInt8(bitPattern: n.objCType.pointee)
            if type == UInt8(ascii: "c") || type == UInt8(ascii: "B") { return nil }
            // `exactly`: a float past Int64 (`1725E90`) is no time at all, and must not trap.
            return Int64(exactly: n.doubleValue.rounded(.down))
        case let s as String:
            guard let d = Double(s.trimmingCharacters(in: .whitespaces)) else { return nil }
            return Int64(exactly: d.rounded(.down))
        default:
            return nil
        }
    }

    /// Checks the ES256 signature; raw r‖s (JOSE) always, DER (Java/Pushy) when `acceptDER`.
    public func verifySignature(with key: PublicKey, acceptDER: Bool) -> Bool {
        if signature.count != 64 && !acceptDER { return false }
        return key.verifyES256(signature: signature, data: signingInput)
    }
}
