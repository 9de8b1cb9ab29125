extension CertificateBuilder {
    /// The basicConstraints extension: whether the subject may issue certificates.
    public enum BasicConstraints: Sendable, Hashable {
        /// `CA:FALSE`: a TLS server or client identity.
        case endEntity
        /// `CA:TRUE`, optionally limiting how many intermediates may follow.
        case certificateAuthority(pathLength: Int?)

        /// OpenSSL config-string form; fixed vocabulary, so no caller text reaches the parser.
        var configValue: String {
            switch self {
            case .endEntity:
                return "critical,CA:FALSE"
            case .certificateAuthority(let pathLength?):
                return "critical,CA:TRUE,pathlen:\(pathLength)"
            case .certificateAuthority(nil):
                return "critical,CA:TRUE"
            }
        }
    }

    /// keyUsage bits (RFC 5280 §4.2.1.3) that the emulator's certificates use.
    public struct KeyUsage: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// ECDSA TLS identities and token keys sign; this is the only bit a P-256 leaf needs.
        public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
        public static let keyAgreement = KeyUsage(rawValue: 1 << 1)
        /// Signing certificates: what makes a CA a CA to path validation.
        public static let keyCertSign = KeyUsage(rawValue: 1 << 2)
        public static let cRLSign = KeyUsage(rawValue: 1 << 3)

        var configValue: String? {
            let names: [(KeyUsage, String)] = [
                (.digitalSignature, "digitalSignature"), (.keyAgreement, "keyAgreement"),
                (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
            ]
            let selected = names.filter { contains($0.0) }.map(\.1)
            return selected.isEmpty ? nil : "critical," + selected.joined(separator: ",")
        }
    }

    /// An extendedKeyUsage purpose.
    public struct ExtendedKeyUsage: Sendable, Hashable {
        /// OpenSSL's short name for the purpose, used in its config-string syntax.
        let name: String

        /// `id-kp-serverAuth`: required by curl, Go and browsers on a TLS server certificate that has an EKU.
        public static let serverAuth = ExtendedKeyUsage(name: "serverAuth")
        /// `id-kp-clientAuth`: what Apple's push certificates carry for TLS client authentication.
        public static let clientAuth = ExtendedKeyUsage(name: "clientAuth")
    }
}
