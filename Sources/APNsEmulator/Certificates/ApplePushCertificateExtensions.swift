import OpenSSLSupport

/// Apple's private X.509 extensions on APNs provider (push) certificates.
///
/// A real push certificate says which APNs environments it may connect to and which topics it may
/// push to only through these extensions; the subject's `UID` merely repeats the primary bundle id.
/// The emulator's development client certificates carry the same extensions so that certificate
/// authentication is exercised with the exact structures providers meet in production.
public enum ApplePushCertificateExtensions {
    /// Present (value DER NULL) on certificates allowed on the sandbox (development) environment.
    public static let sandboxOID = "1.2.840.113635.100.6.3.1"
    /// Present (value DER NULL) on certificates allowed on the production environment.
    public static let productionOID = "1.2.840.113635.100.6.3.2"
    /// The topics a universal push certificate may push to, with each topic's kind.
    public static let topicsOID = "1.2.840.113635.100.6.3.6"

    /// One entry of the topics extension: a topic and the kinds of push it is for.
    public struct Topic: Sendable, Hashable {
        /// The `apns-topic` value, e.g. `com.example.app.voip`.
        public var name: String
        /// Apple's kind labels (`app`, `voip`, `complication`); one per topic in every certificate seen so far.
        public var kinds: [String]

        /// - Parameters:
        ///   - name: The topic.
        ///   - kinds: Its kind labels.
        public init(name: String, kinds: [String]) {
            self.name = name
            self.kinds = kinds
        }

        /// A topic with a single kind, the shape Apple issues.
        public init(name: String, kind: String) {
            self.init(name: name, kinds: [kind])
        }
    }

    /// Encodes topics the way Apple does: one flat SEQUENCE alternating `UTF8String topic` and
    /// `SEQUENCE { UTF8String kind… }`.
    /// - Parameter topics: Topics in the order to list them.
    /// - Returns: The extension value (the DER inside the extension's OCTET STRING).
    public static func encodeTopics(_ topics: [Topic]) -> [UInt8] {
        DER.sequence(topics.flatMap { topic in
            [DER.utf8String(topic.name), DER.sequence(topic.kinds.map(DER.utf8String))]
        })
    }

    /// Decodes the topics extension value written by `encodeTopics` (or by Apple).
    /// - Parameter value: The extension value, e.g. from `Certificate.extensionValue(oid: topicsOID)`.
    public static func decodeTopics(_ value: [UInt8]) throws -> [Topic] {
        let elements = try DER.parse(value).children()
        guard elements.count % 2 == 0 else {
            throw DER.ParseError(reason: "topics extension has an odd number of elements (\(elements.count))")
        }
        return try stride(from: 0, to: elements.count, by: 2).map { index in
            guard let name = elements[index].string else {
                throw DER.ParseError(reason: "topic \(index / 2) is not a string")
            }
            let kinds = try elements[index + 1].children().map { node in
                guard let kind = node.string else { throw DER.ParseError(reason: "kind of \(name) is not a string") }
                return kind
            }
            return Topic(name: name, kinds: kinds)
        }
    }
}
