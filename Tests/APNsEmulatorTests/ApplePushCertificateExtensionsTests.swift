import OpenSSLSupport
import Testing

@testable import APNsEmulator

@Suite struct ApplePushCertificateExtensionsTests {
    @Test func topicsEncodeAsOneFlatSequenceAlternatingTopicAndKinds() {
        let encoded = ApplePushCertificateExtensions.encodeTopics([.init(name: "a.b", kind: "app")])
        #expect(encoded == DER.sequence(DER.utf8String("a.b"), DER.sequence(DER.utf8String("app"))))
        #expect(encoded == [0x30, 0x0C, 0x0C, 0x03, 0x61, 0x2E, 0x62, 0x30, 0x05, 0x0C, 0x03, 0x61, 0x70, 0x70])
    }

    @Test func topicsRoundTrip() throws {
        let topics = DevCertificates.sampleTopics + [.init(name: "x", kinds: [])]
        let encoded = ApplePushCertificateExtensions.encodeTopics(topics)
        #expect(try ApplePushCertificateExtensions.decodeTopics(encoded) == topics)
    }

    @Test func malformedTopicsAreRejected() {
        #expect(throws: DER.ParseError.self) {
            try ApplePushCertificateExtensions.decodeTopics(DER.sequence(DER.utf8String("lonely")))
        }
        #expect(throws: DER.ParseError.self) {
            try ApplePushCertificateExtensions.decodeTopics(DER.sequence(DER.null, DER.sequence()))
        }
        #expect(throws: DER.ParseError.self) { try ApplePushCertificateExtensions.decodeTopics(DER.null) }
    }
}
