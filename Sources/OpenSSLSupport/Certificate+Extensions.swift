import COpenSSL
import CShims

extension Certificate {
    /// Every v3 extension in certificate order, undecoded.
    public var extensions: [CertificateExtension] {
        (0..<X509_get_ext_count(x509)).compactMap { index in
            guard let ext = X509_get_ext(x509, index) else { return nil }
            return CertificateExtension(
                oid: ASN1Helpers.dottedOID(X509_EXTENSION_get_object(ext)),
                isCritical: X509_EXTENSION_get_critical(ext) == 1,
                value: ASN1Helpers.bytes(X509_EXTENSION_get_data(ext))
            )
        }
    }

    /// The DER inside the extension's OCTET STRING, e.g. `05 00` for Apple's sandbox marker
    /// `1.2.840.113635.100.6.3.1`; nil when the certificate lacks it.
    /// - Parameter oid: Dotted OID of the extension.
    public func extensionValue(oid: String) -> [UInt8]? {
        extensions.first { $0.oid == oid }?.value
    }

    /// subjectAltName DNS and IP entries in certificate order; other kinds (URI, email) are skipped.
    public var subjectAlternativeNameEntries: [SubjectAlternativeName] {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else {
            OpenSSLError.clearQueue()
            return []
        }
        let names = OpaquePointer(raw)
        defer { CShims_GENERAL_NAMES_free(names) }
        return (0..<CShims_sk_GENERAL_NAME_num(names)).compactMap { index in
            guard let name = CShims_sk_GENERAL_NAME_value(names, index) else { return nil }
            switch name.pointee.type {
            case GEN_DNS:
                return .dns(String(decoding: ASN1Helpers.bytes(name.pointee.d.dNSName), as: UTF8.self))
            case GEN_IPADD:
                return SubjectAlternativeName.addressText(ASN1Helpers.bytes(name.pointee.d.iPAddress))
                    .map(SubjectAlternativeName.ipAddress)
            default:
                return nil
            }
        }
    }

    /// subjectAltName DNS and IP entries as text (`"localhost"`, `"127.0.0.1"`, `"::1"`).
    public var subjectAlternativeNames: [String] {
        subjectAlternativeNameEntries.map(\.description)
    }
}
