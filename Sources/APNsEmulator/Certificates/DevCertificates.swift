import Foundation
import OpenSSLSupport

/// The development certificate set: a private CA, the TLS server identity for every APNs host name,
/// a sandbox and a production client certificate, and a token-auth key.
///
/// ### Overview
/// Apple's endpoints are impersonated by a certificate only our own CA vouches for, so clients must be
/// told to trust `ca.pem`; that is only practical if the CA stays the same across runs. `ensure`
/// therefore keeps a healthy set untouched and regenerates only when asked or when the set can no
/// longer be used as a whole.
///
/// ### Implementation
/// The set is generated in memory first, then every file is staged under a temporary name and renamed
/// into place, so a reader sees either the old or the new file and never a partial one. A crash
/// between renames can leave old and new files mixed; the next `ensure` sees a CA that does not sign
/// the leaves and regenerates everything, so a half-set never persists past one call.
public enum DevCertificates {
    /// Team id in the client certificates' `OU` and the JWT `iss` the samples use; 10 characters like Apple's.
    public static let sampleTeamId = "DEVTEAM123"
    /// Key id of `AuthKey_DEVKEY1234.p8`, the JWT `kid` the samples use; 10 characters like Apple's.
    public static let sampleKeyId = "DEVKEY1234"
    /// Bundle id the client certificates are issued for (their `UID` and primary topic).
    public static let sampleBundleId = "com.example.app"
    /// `O` of the client certificates, marking them as samples at a glance.
    public static let sampleOrganization = "APNs Emulator Sample"
    /// `CN` of the CA; clients that list trusted roots show this name.
    public static let caCommonName = "APNs Emulator Development CA"

    /// File names inside the certificates folder.
    public enum FileName {
        /// The CA certificate clients trust (`curl --cacert`) and the server checks client certificates against.
        public static let caCertificate = "ca.pem"
        public static let caKey = "ca-key.pem"
        /// Server leaf followed by the CA, the chain served on every TLS handshake.
        public static let serverChain = "server.pem"
        public static let serverKey = "server-key.pem"
        /// Client certificate allowed on the sandbox environment only.
        public static let sandboxClientCertificate = "client-sandbox.pem"
        public static let sandboxClientKey = "client-sandbox-key.pem"
        /// Client certificate allowed on the production environment only.
        public static let productionClientCertificate = "client-production.pem"
        public static let productionClientKey = "client-production-key.pem"
        /// Token-auth signing key, named like the `.p8` files Apple hands out.
        public static let authKey = "AuthKey_\(sampleKeyId).p8"

        /// Every file of the set, in the order they are written and reported.
        public static let all = [
            caCertificate, caKey, serverChain, serverKey, sandboxClientCertificate, sandboxClientKey,
            productionClientCertificate, productionClientKey, authKey,
        ]
        /// Files holding private keys, written with mode 0600.
        public static let privateKeys: Set<String> = [
            caKey, serverKey, sandboxClientKey, productionClientKey, authKey,
        ]
    }

    /// The server certificate's subjectAltNames, in order: every APNs host a client may be pointed at
    /// (through `/etc/hosts`, `--resolve` or a DNS override), the FCM and OneSignal hosts the front doors
    /// answer for, plus loopback for direct connections.
    public static let serverNames: [SubjectAlternativeName] = [
        .dns("api.push.apple.com"),
        .dns("api.sandbox.push.apple.com"),
        .dns("api.development.push.apple.com"),
        .dns("api-broadcast.push.apple.com"),
        .dns("api-broadcast.sandbox.push.apple.com"),
        .dns("api-manage-broadcast.push.apple.com"),
        .dns("api-manage-broadcast.sandbox.push.apple.com"),
        .dns("fcm.googleapis.com"),
        .dns("oauth2.googleapis.com"),
        .dns("onesignal.com"),
        .dns("api.onesignal.com"),
        .dns("localhost"),
        .ipAddress("127.0.0.1"),
        .ipAddress("::1"),
    ]

    /// Topics in the client certificates' topics extension, the shape of an Apple universal push certificate.
    public static let sampleTopics: [ApplePushCertificateExtensions.Topic] = [
        .init(name: sampleBundleId, kind: "app"),
        .init(name: "\(sampleBundleId).voip", kind: "voip"),
        .init(name: "\(sampleBundleId).complication", kind: "complication"),
    ]

    /// CA lifetime: long, because every regeneration forces clients to re-trust a new CA.
    public static let caValidityDays = 3650
    /// Leaf lifetime: Apple platforms and Chrome reject TLS server certificates valid for more than 825 days.
    public static let leafValidityDays = 825
    /// A set closer than this to expiry is regenerated, so a long test run never crosses an expiry.
    public static let renewalMarginDays = 30

    /// Makes sure `directory` holds a complete, consistent and fresh set, writing one if not.
    ///
    /// - Parameters:
    ///   - directory: The certificates folder; created if missing. Other files in it are left alone.
    ///   - force: Regenerate even a healthy set (e.g. to rotate keys).
    ///   - now: The moment validity is judged at and new certificates start from; injected for tests.
    /// - Returns: Which files were written and which kept, and why a set was written.
    public static func ensure(in directory: URL, force: Bool, now: Date = Date()) throws -> Report {
        let files = FileName.all.map { directory.appendingPathComponent($0) }
        let reason: String
        if force {
            reason = "forced"
        } else if let problem = problem(withSetIn: directory, at: now) {
            // Only the host names are behind this version: a new server certificate under the same CA keeps
            // every client's trust.
            if problem == outdatedServerNames, let reissued = try? reissueServerCertificate(in: directory, now: now),
               self.problem(withSetIn: directory, at: now) == nil {
                let kept = files.filter { !reissued.contains($0.lastPathComponent) }
                return Report(directory: directory, written: files.filter { reissued.contains($0.lastPathComponent) },
                              kept: kept, regenerationReason: nil)
            }
            reason = problem
        } else {
            return Report(directory: directory, written: [], kept: files, regenerationReason: nil)
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try writeAtomically(try generate(now: now), in: directory)
        return Report(directory: directory, written: files, kept: [], regenerationReason: reason)
    }
}
