/// An X.509 v3 extension as it sits in the certificate: OID, criticality, and the DER inside the
/// extension's OCTET STRING.
///
/// Kept raw on purpose: Apple's private extensions (environment, topics) have no OpenSSL decoder,
/// and handing callers the exact DER lets them decode with `DER.parse` without this module knowing
/// every extension that exists.
public struct CertificateExtension: Sendable, Hashable {
    /// Dotted OID, e.g. `"1.2.840.113635.100.6.3.6"`.
    public var oid: String
    /// Whether a verifier that does not understand the extension must reject the certificate.
    public var isCritical: Bool
    /// DER contents of the `extnValue` OCTET STRING (not including the OCTET STRING header).
    public var value: [UInt8]

    /// - Parameters:
    ///   - oid: Dotted OID.
    ///   - isCritical: Criticality flag.
    ///   - value: DER bytes of the extension value.
    public init(oid: String, isCritical: Bool, value: [UInt8]) {
        self.oid = oid
        self.isCritical = isCritical
        self.value = value
    }
}
