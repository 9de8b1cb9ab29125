import COpenSSL

extension PrivateKey {
    /// Signs `data` with ECDSA over SHA-256 and returns the JOSE form (raw 64-byte `r || s`).
    ///
    /// The raw form is what a JWT's third segment carries (RFC 7518 §3.4); callers that need DER
    /// never exist in APNs, so only the JOSE form is offered.
    /// - Parameter data: The bytes to sign, e.g. the ASCII of `header.claims` for a provider token.
    /// - Returns: 64 bytes, `r` then `s`, each big-endian and left-padded to 32 bytes.
    public func signES256(_ data: [UInt8]) throws -> [UInt8] {
        try ECDSASignature.raw(fromDER: signDER(data))
    }

    /// ECDSA-SHA256 signature in OpenSSL's native DER encoding.
    func signDER(_ data: [UInt8]) throws -> [UInt8] {
        OpenSSLError.clearQueue()
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.drain("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pkey) == 1 else {
            throw OpenSSLError.drain("EVP_DigestSignInit")
        }
        var length = 0
        let sized = data.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1 else { throw OpenSSLError.drain("EVP_DigestSign") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = data.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { throw OpenSSLError.drain("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }
}
