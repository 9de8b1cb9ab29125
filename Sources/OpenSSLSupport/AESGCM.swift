import COpenSSL

/// AES-256-GCM through libcrypto: what a notification service extension typically uses to decrypt an
/// end-to-end encrypted body, so the emulator's extensions decrypt for real instead of pretending.
///
/// The sealed form is `nonce (12 bytes) || ciphertext || tag (16 bytes)`, the layout CryptoKit's
/// `AES.GCM.SealedBox.combined` uses, so a sender's test vectors carry over.
public enum AESGCM {
    public static let keyBytes = 32
    public static let nonceBytes = 12
    public static let tagBytes = 16

    /// Encrypts `plaintext` with `key` and a random nonce.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) throws -> [UInt8] {
        guard key.count == keyBytes else { throw OpenSSLError(function: "AESGCM.seal", reason: "the key must be 32 bytes") }
        var nonce = [UInt8](repeating: 0, count: nonceBytes)
        guard RAND_bytes(&nonce, Int32(nonceBytes)) == 1 else { throw OpenSSLError.drain("RAND_bytes") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drain("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        OpenSSLError.clearQueue()
        guard EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw OpenSSLError.drain("EVP_EncryptInit_ex")
        }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        guard EVP_EncryptUpdate(ctx, &out, &length, plaintext, Int32(plaintext.count)) == 1 else {
            throw OpenSSLError.drain("EVP_EncryptUpdate")
        }
        var total = Int(length)
        try out.withUnsafeMutableBufferPointer { buffer in
            guard EVP_EncryptFinal_ex(ctx, buffer.baseAddress! + total, &length) == 1 else {
                throw OpenSSLError.drain("EVP_EncryptFinal_ex")
            }
        }
        total += Int(length)
        var tag = [UInt8](repeating: 0, count: tagBytes)
        guard EVP_CIPHER_CTX_ctrl(ctx, 0x10 /* EVP_CTRL_AEAD_GET_TAG */, Int32(tagBytes), &tag) == 1 else {
            throw OpenSSLError.drain("EVP_CIPHER_CTX_ctrl")
        }
        return nonce + out.prefix(total) + tag
    }

    /// Decrypts a sealed box; throws when the key is wrong or the data was altered (the tag fails).
    public static func open(_ sealed: [UInt8], key: [UInt8]) throws -> [UInt8] {
        guard key.count == keyBytes else { throw OpenSSLError(function: "AESGCM.open", reason: "the key must be 32 bytes") }
        guard sealed.count >= nonceBytes + tagBytes else {
            throw OpenSSLError(function: "AESGCM.open", reason: "the sealed box is shorter than a nonce and a tag")
        }
        let nonce = Array(sealed.prefix(nonceBytes))
        let ciphertext = Array(sealed[nonceBytes..<(sealed.count - tagBytes)])
        var tag = Array(sealed.suffix(tagBytes))
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError.drain("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        OpenSSLError.clearQueue()
        guard EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw OpenSSLError.drain("EVP_DecryptInit_ex")
        }
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var length: Int32 = 0
        guard EVP_DecryptUpdate(ctx, &out, &length, ciphertext, Int32(ciphertext.count)) == 1 else {
            throw OpenSSLError.drain("EVP_DecryptUpdate")
        }
        var total = Int(length)
        guard EVP_CIPHER_CTX_ctrl(ctx, 0x11 /* EVP_CTRL_AEAD_SET_TAG */, Int32(tagBytes), &tag) == 1 else {
            throw OpenSSLError.drain("EVP_CIPHER_CTX_ctrl")
        }
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(ctx, buffer.baseAddress! + total, &length)
        }
        guard ok == 1 else {
            throw OpenSSLError(function: "AESGCM.open", reason: "authentication failed: wrong key or altered data")
        }
        total += Int(length)
        return Array(out.prefix(total))
    }
}
