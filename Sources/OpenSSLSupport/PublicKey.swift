import COpenSSL

/// A public key, read from PEM or a certificate, used to check ES256 signatures.
///
/// ### Why `Sendable`
/// Same argument as `PrivateKey`: the `EVP_PKEY` is never mutated after `init`, each verification
/// uses its own `EVP_MD_CTX`, and OpenSSL 3 locks its caches and counts references atomically.
public final class PublicKey: @unchecked Sendable {
    /// Owned reference: freed in `deinit`.
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Parses a SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    /// - Parameter pem: The PEM text.
    public convenience init(pem: String) throws {
        OpenSSLError.clearQueue()
        let key = try MemoryBIO.reading(Array(pem.utf8), "PEM_read_bio_PUBKEY") { bio in
            PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { throw OpenSSLError.drain("PEM_read_bio_PUBKEY") }
        self.init(taking: key)
    }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public var pem: String {
        // Writing a valid in-memory key to a memory BIO fails only when allocation fails.
        let bytes = try! MemoryBIO.writing("PEM_write_bio_PUBKEY") { bio in
            PEM_write_bio_PUBKEY(bio, pkey)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The uncompressed point `04 || X || Y` (65 bytes for P-256); empty for non-EC keys.
    public var rawRepresentation: [UInt8] {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, nil, 0, &length) == 1 else {
            OpenSSLError.clearQueue()
            return []
        }
        var bytes = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &bytes, length, &length) == 1
        else {
            OpenSSLError.clearQueue()
            return []
        }
        return Array(bytes.prefix(length))
    }

    /// Whether both keys are the same public key (compared by their SubjectPublicKeyInfo).
    public func matches(_ other: PublicKey) -> Bool {
        EVP_PKEY_eq(pkey, other.pkey) == 1
    }
}
