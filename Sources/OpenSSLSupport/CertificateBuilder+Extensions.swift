import COpenSSL

extension CertificateBuilder {
    /// Adds the standard extensions in a fixed order, then the custom ones.
    ///
    /// Standard extensions go through OpenSSL's config-string parser, whose values here come only
    /// from our own vocabulary; subjectAltName and custom extensions carry caller text, so they are
    /// DER-encoded by `DER` and attached as bytes. The subject key identifier must be added before the
    /// authority key identifier: for a self-signed certificate OpenSSL copies the latter from the former.
    func addExtensions(to x509: OpaquePointer, issuer: OpaquePointer) throws {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer, x509, nil, nil, 0)
        try addConfigured(NID_basic_constraints, basicConstraints.configValue, to: x509, context: &context)
        if let usage = keyUsage.configValue {
            try addConfigured(NID_key_usage, usage, to: x509, context: &context)
        }
        if !extendedKeyUsage.isEmpty {
            let purposes = extendedKeyUsage.map(\.name).joined(separator: ",")
            try addConfigured(NID_ext_key_usage, purposes, to: x509, context: &context)
        }
        if includesKeyIdentifiers {
            try addConfigured(NID_subject_key_identifier, "hash", to: x509, context: &context)
            try addConfigured(NID_authority_key_identifier, "keyid:always", to: x509, context: &context)
        }
        if !subjectAlternativeNames.isEmpty {
            try add(
                CertificateExtension(oid: "2.5.29.17", isCritical: false, value: try encodedAlternativeNames()),
                to: x509
            )
        }
        for custom in customExtensions {
            try add(custom, to: x509)
        }
    }

    /// `GeneralNames ::= SEQUENCE OF GeneralName` with `dNSName [2] IA5String`, `iPAddress [7] OCTET STRING`.
    private func encodedAlternativeNames() throws -> [UInt8] {
        try DER.sequence(
            subjectAlternativeNames.map { name in
                switch name {
                case .dns(let host):
                    return DER.contextSpecific(2, content: Array(host.utf8))
                case .ipAddress(let text):
                    guard let bytes = name.addressBytes else {
                        throw OpenSSLError(function: "CertificateBuilder", reason: "not an IP address: \(text)")
                    }
                    return DER.contextSpecific(7, content: bytes)
                }
            }
        )
    }

    private func addConfigured(
        _ nid: Int32,
        _ value: String,
        to x509: OpaquePointer,
        context: inout X509V3_CTX
    ) throws {
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw OpenSSLError.drain("X509V3_EXT_conf_nid(\(value))")
        }
        defer { X509_EXTENSION_free(ext) }
        try check(X509_add_ext(x509, ext, -1), "X509_add_ext")
    }

    private func add(_ custom: CertificateExtension, to x509: OpaquePointer) throws {
        let object = try ASN1Helpers.object(dotted: custom.oid)
        defer { ASN1_OBJECT_free(object) }
        guard let octets = ASN1_OCTET_STRING_new() else { throw OpenSSLError.drain("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(octets) }
        try check(ASN1_OCTET_STRING_set(octets, custom.value, Int32(custom.value.count)), "ASN1_OCTET_STRING_set")
        guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, custom.isCritical ? 1 : 0, octets) else {
            throw OpenSSLError.drain("X509_EXTENSION_create_by_OBJ(\(custom.oid))")
        }
        defer { X509_EXTENSION_free(ext) }
        // X509_add_ext stores a copy, so freeing ours above is correct.
        try check(X509_add_ext(x509, ext, -1), "X509_add_ext")
    }
}
