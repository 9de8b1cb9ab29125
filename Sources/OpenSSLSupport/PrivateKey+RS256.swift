import COpenSSL

extension PrivateKey {
    /// Signs `data` with RSASSA-PKCS1-v1_5 over SHA-256 (JWS `RS256`), the signature of Google service-account
    /// assertions; throws for a key that is not RSA.
    public func signRS256(_ data: [UInt8]) throws -> [UInt8] {
        guard publicKey.isRSA else { throw OpenSSLError(function: "signRS256", reason: "the key is not an RSA key") }
        return try signDER(data)
    }
}
