import Foundation
import OpenSSLSupport

extension DevCertificates {
    /// Which APNs environment a client certificate is for.
    enum ClientEnvironment: CaseIterable {
        case sandbox, production

        /// The marker extension Apple puts on certificates for this environment.
        var extensionOID: String {
            switch self {
            case .sandbox: return ApplePushCertificateExtensions.sandboxOID
            case .production: return ApplePushCertificateExtensions.productionOID
            }
        }

        /// The marker extension of the other environment, which this certificate must not carry.
        var otherExtensionOID: String {
            switch self {
            case .sandbox: return ApplePushCertificateExtensions.productionOID
            case .production: return ApplePushCertificateExtensions.sandboxOID
            }
        }

        var certificateFile: String {
            switch self {
            case .sandbox: return FileName.sandboxClientCertificate
            case .production: return FileName.productionClientCertificate
            }
        }

        var keyFile: String {
            switch self {
            case .sandbox: return FileName.sandboxClientKey
            case .production: return FileName.productionClientKey
            }
        }
    }

    /// The subject Apple gives a push certificate, with our sample ids.
    static var clientSubject: [NameEntry] {
        [
            .commonName("Apple Push Services: \(sampleBundleId)"), .userID(sampleBundleId),
            .organizationalUnit(sampleTeamId), .organization(sampleOrganization), .country("US"),
        ]
    }

    /// Builds a whole new set in memory: file name → contents, in `FileName.all` order.
    ///
    /// Validity starts an hour before `now` so a client whose clock runs a little behind the machine
    /// that generated the set (a container, a CI runner) still accepts it.
    static func generate(now: Date) throws -> [(name: String, contents: String)] {
        let start = now - 3600
        let day: TimeInterval = 86_400

        let caKey = try PrivateKey.generateP256()
        var caBuilder = CertificateBuilder(
            subject: [.commonName(caCommonName), .organization(sampleOrganization)],
            notBefore: start,
            notAfter: start + Double(caValidityDays) * day
        )
        caBuilder.basicConstraints = .certificateAuthority(pathLength: 0)
        caBuilder.keyUsage = [.keyCertSign, .cRLSign]
        let ca = try caBuilder.selfSigned(key: caKey)

        let leafEnd = start + Double(leafValidityDays) * day
        let (server, serverKey) = try serverCertificate(ca: ca, caKey: caKey, notBefore: start, notAfter: leafEnd)

        var files: [(name: String, contents: String)] = [
            (FileName.caCertificate, ca.pem), (FileName.caKey, caKey.pkcs8PEM),
            (FileName.serverChain, server.pem + ca.pem), (FileName.serverKey, serverKey.pkcs8PEM),
        ]
        for environment in ClientEnvironment.allCases {
            let key = try PrivateKey.generateP256()
            var builder = CertificateBuilder(subject: clientSubject, notBefore: start, notAfter: leafEnd)
            builder.keyUsage = [.digitalSignature]
            builder.extendedKeyUsage = [.clientAuth]
            builder.customExtensions = [
                CertificateExtension(oid: environment.extensionOID, isCritical: false, value: DER.null),
                CertificateExtension(
                    oid: ApplePushCertificateExtensions.topicsOID,
                    isCritical: false,
                    value: ApplePushCertificateExtensions.encodeTopics(sampleTopics)
                ),
            ]
            let certificate = try builder.issued(for: key.publicKey, by: ca, issuerKey: caKey)
            files.append((environment.certificateFile, certificate.pem))
            files.append((environment.keyFile, key.pkcs8PEM))
        }
        files.append((FileName.authKey, try PrivateKey.generateP256().pkcs8PEM))
        return files
    }

    /// A server certificate for `serverNames`, issued by `ca`.
    static func serverCertificate(ca: Certificate, caKey: PrivateKey, notBefore: Date, notAfter: Date) throws
        -> (Certificate, PrivateKey)
    {
        let serverKey = try PrivateKey.generateP256()
        var serverBuilder = CertificateBuilder(
            subject: [.commonName("api.push.apple.com"), .organization(sampleOrganization)],
            notBefore: notBefore,
            notAfter: notAfter
        )
        serverBuilder.keyUsage = [.digitalSignature]
        serverBuilder.extendedKeyUsage = [.serverAuth]
        serverBuilder.subjectAlternativeNames = serverNames
        return (try serverBuilder.issued(for: serverKey.publicKey, by: ca, issuerKey: caKey), serverKey)
    }

    /// Replaces the server certificate and key in `directory` with new ones under the CA already there, and
    /// returns the file names written.
    static func reissueServerCertificate(in directory: URL, now: Date) throws -> Set<String> {
        func text(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
        }
        let ca = try Certificate(pem: text(FileName.caCertificate))
        let caKey = try PrivateKey(pem: text(FileName.caKey))
        let start = now - 3600
        let (server, key) = try serverCertificate(
            ca: ca, caKey: caKey, notBefore: start, notAfter: start + Double(leafValidityDays) * 86_400)
        try writeAtomically([(FileName.serverChain, server.pem + ca.pem), (FileName.serverKey, key.pkcs8PEM)], in: directory)
        return [FileName.serverChain, FileName.serverKey]
    }
}
