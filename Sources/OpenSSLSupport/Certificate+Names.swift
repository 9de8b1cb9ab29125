import COpenSSL

extension Certificate {
    /// Subject attributes in certificate order.
    public var subject: [NameEntry] {
        Self.entries(of: X509_get_subject_name(x509))
    }

    /// Issuer attributes in certificate order.
    public var issuer: [NameEntry] {
        Self.entries(of: X509_get_issuer_name(x509))
    }

    /// The first subject attribute with this short name (`"CN"`, `"UID"`, `"OU"`, `"O"`, `"C"`) or dotted OID.
    ///
    /// "First" matters only for names with repeated attributes, which none of ours have.
    /// - Parameter shortName: OpenSSL short name, or a dotted OID for attributes without one.
    public func subjectValue(shortName: String) -> String? {
        subject.first { $0.shortName == shortName || $0.oid == shortName }?.value
    }

    private static func entries(of name: OpaquePointer?) -> [NameEntry] {
        guard let name else { return [] }
        return (0..<X509_NAME_entry_count(name)).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index) else { return nil }
            let object = X509_NAME_ENTRY_get_object(entry)
            let oid = ASN1Helpers.dottedOID(object)
            return NameEntry(
                oid: oid,
                shortName: ASN1Helpers.shortName(object) ?? oid,
                value: ASN1Helpers.text(X509_NAME_ENTRY_get_data(entry))
            )
        }
    }
}
