import COpenSSL
import Foundation

/// An X.509 certificate: the emulator's CA, server and client identities, and whatever clients present.
///
/// ### Why `Sendable`
/// The wrapped `X509` is never mutated after `init` returns: only `CertificateBuilder` edits an
/// `X509`, and it does so before wrapping it. Reading is safe from several threads in OpenSSL 3: the
/// one lazily computed part (the cached extension flags filled by `ossl_x509v3_cache_extensions`) is
/// guarded by the certificate's own lock, and references are counted atomically.
public final class Certificate: @unchecked Sendable {
    /// Owned reference: freed in `deinit`. Never handed out past this module.
    let x509: OpaquePointer

    /// Takes ownership of a reference the caller already holds.
    init(taking x509: OpaquePointer) {
        self.x509 = x509
    }

    deinit {
        X509_free(x509)
    }

    /// Parses the first certificate in a PEM text (`BEGIN CERTIFICATE`).
    /// - Parameter pem: PEM text; further certificates after the first are ignored (see `chain(pem:)`).
    public convenience init(pem: String) throws {
        OpenSSLError.clearQueue()
        let x509 = try MemoryBIO.reading(Array(pem.utf8), "PEM_read_bio_X509") { bio in
            PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let x509 else { throw OpenSSLError.drain("PEM_read_bio_X509") }
        self.init(taking: x509)
    }

    /// Parses one DER-encoded certificate, rejecting trailing bytes so a concatenation is not half-read.
    /// - Parameter der: The certificate's DER.
    public convenience init(der: [UInt8]) throws {
        OpenSSLError.clearQueue()
        var consumed = 0
        let x509: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_X509(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return parsed
        }
        guard let x509 else { throw OpenSSLError.drain("d2i_X509") }
        guard consumed == der.count else {
            X509_free(x509)
            throw OpenSSLError(function: "d2i_X509", reason: "\(der.count - consumed) trailing bytes after certificate")
        }
        self.init(taking: x509)
    }

    /// Every certificate in a PEM text, in file order (leaf first for a served chain).
    /// - Parameter pem: PEM text holding one or more `BEGIN CERTIFICATE` blocks.
    /// - Returns: At least one certificate; a text with none throws.
    public static func chain(pem: String) throws -> [Certificate] {
        OpenSSLError.clearQueue()
        let certificates = try MemoryBIO.reading(Array(pem.utf8), "PEM_read_bio_X509") { bio in
            var found: [Certificate] = []
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                found.append(Certificate(taking: x509))
            }
            return found
        }
        // The loop ends on "no start line" at end of input; that is not a failure.
        OpenSSLError.clearQueue()
        guard !certificates.isEmpty else {
            throw OpenSSLError(function: "PEM_read_bio_X509", reason: "no certificate in PEM")
        }
        return certificates
    }

    /// Reads a PEM file of one or more certificates, such as a `server.pem` holding leaf then CA.
    /// - Parameter pemFile: Path of the file.
    public static func loadChain(pemFile: String) throws -> [Certificate] {
        let data = try Data(contentsOf: URL(fileURLWithPath: pemFile))
        return try chain(pem: String(decoding: data, as: UTF8.self))
    }

    /// The certificate as PEM (`BEGIN CERTIFICATE`), newline-terminated so PEMs concatenate into chains.
    public var pem: String {
        // Writing a parsed certificate to a memory BIO fails only when allocation fails.
        let bytes = try! MemoryBIO.writing("PEM_write_bio_X509") { bio in PEM_write_bio_X509(bio, x509) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The certificate's DER encoding, byte-for-byte as signed.
    public var der: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// Serial number magnitude, big-endian, without a sign byte.
    public var serialNumber: [UInt8] {
        ASN1Helpers.bytes(X509_get0_serialNumber(x509))
    }

    /// Start of the validity period.
    public var notBefore: Date {
        ASN1Helpers.date(X509_get0_notBefore(x509))
    }

    /// End of the validity period.
    public var notAfter: Date {
        ASN1Helpers.date(X509_get0_notAfter(x509))
    }

    /// The subject public key, sharing the certificate's `EVP_PKEY` (one more reference, no copy).
    public var publicKey: PublicKey {
        // X509_get0_pubkey is non-nil for any certificate d2i_X509 accepted.
        let key = X509_get0_pubkey(x509)!
        EVP_PKEY_up_ref(key)
        return PublicKey(taking: key)
    }
}

extension Certificate: Hashable {
    /// Two certificates are equal when their DER is; the same bytes are the same certificate.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.der == rhs.der
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(der)
    }
}
