import APNsProtocol
import Foundation
import OpenSSLSupport

extension ClientCertificateInfo {
    /// Reads Apple's push-certificate fields from a TLS client certificate.
    /// - Parameters:
    ///   - der: the certificate the client presented.
    ///   - trusted: whether it chained to the emulator's CA during the handshake.
    ///   - now: emulator time in ms, for the validity check.
    static func from(der: [UInt8], trusted: Bool, now: Millis) -> ClientCertificateInfo {
        guard let cert = try? Certificate(der: der) else {
            return ClientCertificateInfo(trusted: false, currentlyValid: false, bundleId: nil, environments: [], topics: [])
        }
        let date = Date(timeIntervalSince1970: Double(now) / 1000)
        var environments: Set<APNsEnvironment> = []
        if cert.extensionValue(oid: ApplePushCertificateExtensions.sandboxOID) != nil { environments.insert(.sandbox) }
        if cert.extensionValue(oid: ApplePushCertificateExtensions.productionOID) != nil { environments.insert(.production) }
        let topics = cert.extensionValue(oid: ApplePushCertificateExtensions.topicsOID)
            .flatMap { try? ApplePushCertificateExtensions.decodeTopics($0) }?.map(\.name) ?? []
        return ClientCertificateInfo(
            trusted: trusted, currentlyValid: cert.notBefore <= date && date <= cert.notAfter,
            bundleId: cert.subjectValue(shortName: "UID"), environments: environments, topics: topics)
    }
}
