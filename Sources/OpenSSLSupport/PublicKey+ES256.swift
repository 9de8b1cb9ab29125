import COpenSSL

extension PublicKey {
    /// Checks an ECDSA-SHA256 signature over `data`.
    ///
    /// Both encodings are accepted because both reach an APNs server in practice: JOSE raw `r || s`
    /// from conforming JWT libraries, and DER from providers that pasted OpenSSL's output into the
    /// token. A 64-byte input is tried as raw first; DER of exactly 64 bytes is possible (short `r`
    /// and `s`), so it is tried as DER when the raw reading fails.
    /// - Parameters:
    ///   - signature: Raw 64-byte `r || s`, or a DER `ECDSA-Sig-Value`.
    ///   - data: The signed bytes.
    /// - Returns: Whether the signature is valid for this key; malformed input is simply `false`.
    public func verifyES256(signature: [UInt8], data: [UInt8]) -> Bool {
        if let der = ECDSASignature.der(fromRaw: signature), verifyDER(der, data: data) {
            return true
        }
        return signature.first == 0x30 && verifyDER(signature, data: data)
    }

    /// Verifies a DER signature; OpenSSL 3 rejects non-canonical DER itself, so no re-encoding check here.
    func verifyDER(_ signature: [UInt8], data: [UInt8]) -> Bool {
        defer { OpenSSLError.clearQueue() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        let result = signature.withUnsafeBufferPointer { sig in
            data.withUnsafeBufferPointer { input in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, input.baseAddress, input.count)
            }
        }
        return result == 1
    }
}
