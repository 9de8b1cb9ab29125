import COpenSSL

extension PublicKey {
    /// Whether this is an RSA key (Google service accounts sign their OAuth assertions with one).
    public var isRSA: Bool { EVP_PKEY_get_base_id(pkey) == NID_rsaEncryption }

    /// Checks an RSASSA-PKCS1-v1_5 SHA-256 signature (JWS `RS256`, RFC 7518 §3.3) over `data`; false for a
    /// non-RSA key or a malformed signature.
    public func verifyRS256(signature: [UInt8], data: [UInt8]) -> Bool {
        isRSA && verifyDER(signature, data: data)
    }
}
