import Foundation
import OpenSSLSupport

extension DevCertificates {
    /// Why the set in `directory` cannot be kept, or nil when it can.
    ///
    /// "Kept" means usable as a whole for at least `renewalMarginDays`: every file parses, every
    /// certificate chains to this `ca.pem` and matches its key, and the server and client certificates
    /// still have the shape this version generates (SAN list, environment and topics extensions), so a
    /// set from an older version with fewer host names is replaced rather than silently served.
    static func problem(withSetIn directory: URL, at now: Date) -> String? {
        do {
            return try check(directory, at: now)
        } catch {
            return "unreadable set (\(error))"
        }
    }

    /// The one problem `ensure` mends without a new CA: a server certificate from a version with other host names.
    static let outdatedServerNames = "\(FileName.serverChain) has other host names than this version serves"

    private static func check(_ directory: URL, at now: Date) throws -> String? {
        for name in FileName.all {
            guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) else {
                return "missing \(name)"
            }
        }
        func text(_ name: String) throws -> String {
            String(decoding: try Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
        }
        let horizon = now + Double(renewalMarginDays) * 86_400

        /// Chain, validity window and key match shared by every certificate in the set.
        func certificateProblem(
            _ certificate: Certificate,
            _ name: String,
            key: PrivateKey,
            ca: Certificate
        ) -> String? {
            if let failure = certificate.verificationFailure(chainTo: [ca], at: now) {
                return "\(name) does not verify against \(FileName.caCertificate): \(failure)"
            }
            if certificate.notAfter < horizon {
                return "\(name) expires within \(renewalMarginDays) days"
            }
            if !certificate.publicKey.matches(key.publicKey) {
                return "\(name) does not match its key"
            }
            return nil
        }

        let caChain = try Certificate.chain(pem: text(FileName.caCertificate))
        guard caChain.count == 1, let ca = caChain.first else {
            return "\(FileName.caCertificate) is not one certificate"
        }
        let caKey = try PrivateKey(pem: text(FileName.caKey))
        if let failure = certificateProblem(ca, FileName.caCertificate, key: caKey, ca: ca) {
            return failure
        }

        let serverChain = try Certificate.chain(pem: text(FileName.serverChain))
        guard serverChain.count == 2, serverChain[1] == ca else {
            return "\(FileName.serverChain) is not the server certificate followed by \(FileName.caCertificate)"
        }
        let serverKey = try PrivateKey(pem: text(FileName.serverKey))
        if let failure = certificateProblem(serverChain[0], FileName.serverChain, key: serverKey, ca: ca) {
            return failure
        }
        if serverChain[0].subjectAlternativeNameEntries != serverNames {
            return outdatedServerNames
        }

        for environment in ClientEnvironment.allCases {
            let name = environment.certificateFile
            let client = try Certificate(pem: text(name))
            let key = try PrivateKey(pem: text(environment.keyFile))
            if let failure = certificateProblem(client, name, key: key, ca: ca) {
                return failure
            }
            let topics = client.extensionValue(oid: ApplePushCertificateExtensions.topicsOID)
            guard client.subjectValue(shortName: "UID") == sampleBundleId,
                client.extensionValue(oid: environment.extensionOID) == DER.null,
                client.extensionValue(oid: environment.otherExtensionOID) == nil,
                try topics.map(ApplePushCertificateExtensions.decodeTopics) == sampleTopics
            else {
                return "\(name) lacks the sample UID, environment or topics"
            }
        }

        let authKey = try PrivateKey(pem: text(FileName.authKey))
        if authKey.rawPublicKey.count != 65 {
            return "\(FileName.authKey) is not a P-256 key"
        }
        return nil
    }
}
