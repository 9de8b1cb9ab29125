import COpenSSL

/// An EC P-256 private key: the key behind APNs provider tokens (`.p8`) and the TLS identities.
///
/// ### Why `Sendable`
/// The wrapped `EVP_PKEY` is never mutated after `init` returns: no method of this class calls a
/// setter on it, and every signing operation works on its own `EVP_MD_CTX`. OpenSSL 3 documents
/// `EVP_PKEY` as safe for concurrent read-only use, guards its lazily filled provider caches with the
/// key's own lock, and counts references atomically, so sharing one instance across threads (and
/// `up_ref`-ing it from several) is sound without a lock of ours.
public final class PrivateKey: @unchecked Sendable {
    /// Owned reference: freed in `deinit`. Never handed out past this module.
    let pkey: OpaquePointer

    /// Takes ownership of a key reference the caller already holds.
    init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Generates a fresh P-256 key from OpenSSL's CSPRNG.
    ///
    /// Goes through `EVP_PKEY_CTX` because `EVP_EC_gen` is a variadic macro Swift cannot call.
    public static func generateP256() throws -> PrivateKey {
        OpenSSLError.clearQueue()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLError.drain("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw OpenSSLError.drain("EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw OpenSSLError.drain("EVP_PKEY_CTX_set_group_name")
        }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw OpenSSLError.drain("EVP_PKEY_generate") }
        return PrivateKey(taking: key)
    }

    /// Parses a PEM private key.
    ///
    /// Accepts both PKCS#8 (`BEGIN PRIVATE KEY`, what Apple's `.p8` files hold) and SEC1
    /// (`BEGIN EC PRIVATE KEY`, what `openssl ecparam -genkey` writes), since users bring either.
    /// Encrypted PEMs are refused rather than prompting for a passphrase on the terminal.
    /// - Parameter pem: The PEM text; anything around the armour is ignored.
    public convenience init(pem: String) throws {
        OpenSSLError.clearQueue()
        let key = try MemoryBIO.reading(Array(pem.utf8), "PEM_read_bio_PrivateKey") { bio in
            PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil)
        }
        guard let key else { throw OpenSSLError.drain("PEM_read_bio_PrivateKey") }
        self.init(taking: key)
    }

    /// The key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form Apple issues `.p8` keys in.
    public var pkcs8PEM: String {
        // Writing a valid in-memory key to a memory BIO fails only when allocation fails.
        let bytes = try! MemoryBIO.writing("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The matching public key, sharing this key's `EVP_PKEY` (one more reference, no copy).
    public var publicKey: PublicKey {
        EVP_PKEY_up_ref(pkey)
        return PublicKey(taking: pkey)
    }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`) of the matching public key.
    public var publicKeyPEM: String {
        publicKey.pem
    }

    /// The 65-byte uncompressed public point `04 || X || Y`, the form JWK `x`/`y` and Apple's key
    /// fingerprints are built from.
    public var rawPublicKey: [UInt8] {
        publicKey.rawRepresentation
    }
}

/// Passphrase callback that supplies none, so an encrypted PEM fails instead of reading the terminal.
private let refusePassphrase: @convention(c) (
    UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?
) -> Int32 = { _, _, _, _ in -1 }
