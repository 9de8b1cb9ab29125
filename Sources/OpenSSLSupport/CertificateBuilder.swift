import COpenSSL
import Foundation

/// Describes an X.509 v3 certificate and issues it, signed ECDSA-SHA256 by a P-256 key.
///
/// A value type so a template (say, the client-certificate shape) can be copied and tweaked per
/// environment. Everything the emulator's development set needs is here and nothing more: no RSA, no
/// CRL distribution points, no policies. Anything else can ride in `customExtensions` as raw DER.
///
/// ```swift
/// var ca = CertificateBuilder(subject: [.commonName("Test CA")], notBefore: now, notAfter: later)
/// ca.basicConstraints = .certificateAuthority(pathLength: nil)
/// ca.keyUsage = [.keyCertSign, .cRLSign]
/// let caCertificate = try ca.selfSigned(key: caKey)
/// ```
public struct CertificateBuilder: Sendable {
    /// Subject attributes, in the order they are to appear.
    public var subject: [NameEntry]
    /// Serial magnitude, big-endian; nil draws a fresh random positive 128-bit value at issue time.
    public var serialNumber: [UInt8]?
    /// Start of validity.
    public var notBefore: Date
    /// End of validity.
    public var notAfter: Date
    /// Always written, always critical, as RFC 5280 §4.2.1.9 asks of CAs and browsers expect of leaves.
    public var basicConstraints: BasicConstraints = .endEntity
    /// Written critical when non-empty, omitted when empty.
    public var keyUsage: KeyUsage = []
    /// Written non-critical when non-empty, omitted when empty.
    public var extendedKeyUsage: [ExtendedKeyUsage] = []
    /// Written non-critical when non-empty; entries keep their order.
    public var subjectAlternativeNames: [SubjectAlternativeName] = []
    /// Whether to add subjectKeyIdentifier (SHA-1 of the key) and authorityKeyIdentifier (the issuer's).
    ///
    /// On by default because OpenSSL picks among same-named CAs by these, and regenerated dev CAs
    /// all share one name.
    public var includesKeyIdentifiers = true
    /// Extensions added verbatim after the standard ones, in order.
    public var customExtensions: [CertificateExtension] = []

    /// - Parameters:
    ///   - subject: Subject attributes in order.
    ///   - notBefore: Start of validity.
    ///   - notAfter: End of validity.
    public init(subject: [NameEntry], notBefore: Date, notAfter: Date) {
        self.subject = subject
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Issues a self-signed certificate for `key` (a root CA, or a standalone test leaf).
    /// - Parameter key: Both the subject key and the signing key.
    public func selfSigned(key: PrivateKey) throws -> Certificate {
        try issue(subjectKey: key.publicKey, issuer: nil, signingKey: key)
    }

    /// Issues a certificate for `subjectKey` signed by `issuer`.
    /// - Parameters:
    ///   - subjectKey: The key the certificate vouches for.
    ///   - issuer: The CA certificate whose subject becomes this certificate's issuer.
    ///   - issuerKey: The CA's private key; must match `issuer`'s public key.
    public func issued(for subjectKey: PublicKey, by issuer: Certificate, issuerKey: PrivateKey) throws -> Certificate {
        guard issuer.publicKey.matches(issuerKey.publicKey) else {
            throw OpenSSLError(
                function: "CertificateBuilder.issued",
                reason: "issuer key does not match issuer certificate"
            )
        }
        return try issue(subjectKey: subjectKey, issuer: issuer, signingKey: issuerKey)
    }

    private func issue(subjectKey: PublicKey, issuer: Certificate?, signingKey: PrivateKey) throws -> Certificate {
        guard notBefore < notAfter else {
            throw OpenSSLError(function: "CertificateBuilder", reason: "notBefore is not before notAfter")
        }
        OpenSSLError.clearQueue()
        guard let x509 = X509_new() else { throw OpenSSLError.drain("X509_new") }
        defer { X509_free(x509) }
        try check(X509_set_version(x509, Int(X509_VERSION_3)), "X509_set_version")
        try setSerial(x509)
        let name = try Self.makeName(subject)
        defer { X509_NAME_free(name) }
        try check(X509_set_subject_name(x509, name), "X509_set_subject_name")
        let issuerName = issuer.map { X509_get_subject_name($0.x509) } ?? name
        try check(X509_set_issuer_name(x509, issuerName), "X509_set_issuer_name")
        try setTime(X509_getm_notBefore(x509), notBefore)
        try setTime(X509_getm_notAfter(x509), notAfter)
        try check(X509_set_pubkey(x509, subjectKey.pkey), "X509_set_pubkey")
        try addExtensions(to: x509, issuer: issuer?.x509 ?? x509)
        guard X509_sign(x509, signingKey.pkey, EVP_sha256()) > 0 else { throw OpenSSLError.drain("X509_sign") }
        // Re-parse the signed bytes so the returned object is exactly what any peer will parse,
        // with no builder-side caches or "modified" flags carried along.
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        guard length > 0, let out else { throw OpenSSLError.drain("i2d_X509") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return try Certificate(der: Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }

    private func setSerial(_ x509: OpaquePointer) throws {
        var serial = serialNumber ?? []
        if serialNumber == nil {
            serial = [UInt8](repeating: 0, count: 16)
            guard RAND_bytes(&serial, Int32(serial.count)) == 1 else { throw OpenSSLError.drain("RAND_bytes") }
            // Positive (top bit clear) and exactly 16 octets in DER (no leading zero to strip).
            serial[0] = max(serial[0] & 0x7F, 1)
        }
        guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else { throw OpenSSLError.drain("BN_bin2bn") }
        defer { BN_free(number) }
        guard let integer = BN_to_ASN1_INTEGER(number, nil) else { throw OpenSSLError.drain("BN_to_ASN1_INTEGER") }
        defer { ASN1_INTEGER_free(integer) }
        try check(X509_set_serialNumber(x509, integer), "X509_set_serialNumber")
    }

    private func setTime(_ field: UnsafeMutablePointer<ASN1_TIME>?, _ date: Date) throws {
        // ASN1_TIME_set writes UTCTime before 2050 and GeneralizedTime after, per RFC 5280 §4.1.2.5.
        guard ASN1_TIME_set(field, time_t(date.timeIntervalSince1970.rounded(.down))) != nil else {
            throw OpenSSLError.drain("ASN1_TIME_set")
        }
    }

    private static func makeName(_ entries: [NameEntry]) throws -> OpaquePointer {
        guard let name = X509_NAME_new() else { throw OpenSSLError.drain("X509_NAME_new") }
        for entry in entries {
            do {
                let object = try ASN1Helpers.object(dotted: entry.oid)
                defer { ASN1_OBJECT_free(object) }
                let bytes = Array(entry.value.utf8)
                // MBSTRING_UTF8 lets OpenSSL choose the attribute's string type from its table:
                // PrintableString for C, UTF8String for the rest.
                guard X509_NAME_add_entry_by_OBJ(name, object, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1
                else { throw OpenSSLError.drain("X509_NAME_add_entry_by_OBJ(\(entry))") }
            } catch {
                X509_NAME_free(name)
                throw error
            }
        }
        return name
    }
}

/// Turns OpenSSL's 1-on-success convention into a throw carrying the queue.
func check(_ status: Int32, _ function: String) throws {
    guard status == 1 else { throw OpenSSLError.drain(function) }
}
