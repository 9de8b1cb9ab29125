/// What a server's TLS side presents and asks for.
public struct TLSServerConfiguration: Sendable, Equatable {
    /// PEM file with the leaf certificate followed by its chain.
    public var certificateChainFile: String
    /// PEM file with the leaf's private key.
    public var privateKeyFile: String
    /// When set, clients are asked for a certificate, verified against these roots. The handshake never
    /// fails for a missing or untrusted certificate: the verdict is passed up so the application can
    /// answer in its own terms (APNs says 403 BadCertificate, not a TLS alert).
    public var clientCertificateTrustFile: String?

    public init(certificateChainFile: String, privateKeyFile: String, clientCertificateTrustFile: String? = nil) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.clientCertificateTrustFile = clientCertificateTrustFile
    }
}

/// What a client trusts and presents.
public struct TLSClientConfiguration: Sendable, Equatable {
    /// PEM roots to verify the server against; nil uses OpenSSL's default paths.
    public var trustRootsFile: String?
    /// Client certificate chain and key for mutual TLS (APNs certificate auth).
    public var certificateChainFile: String?
    public var privateKeyFile: String?
    /// Whether to verify the server certificate and its name at all.
    public var verifyPeer: Bool = true
    /// ALPN protocols to offer; empty offers none (as Python's aioapns does), which a server must tolerate.
    public var alpnProtocols: [String] = ["h2"]

    public init(
        trustRootsFile: String? = nil, certificateChainFile: String? = nil, privateKeyFile: String? = nil,
        verifyPeer: Bool = true, alpnProtocols: [String] = ["h2"]
    ) {
        self.trustRootsFile = trustRootsFile
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.verifyPeer = verifyPeer
        self.alpnProtocols = alpnProtocols
    }
}
