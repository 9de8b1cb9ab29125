import Foundation
import Testing

@testable import APNsProtocol

/// Payloads written in a provider's request format are recognised, and ordinary APNs payloads are not.
@Suite struct ProviderShapeTests {
    static func hints(_ json: String) -> [String] { ProviderShape.hints(inPayload: Array(json.utf8)) }

    @Test func anOrdinaryAPNsPayloadHasNoHints() {
        #expect(Self.hints(#"{"aps":{"alert":{"title":"t","body":"b"},"thread-id":"r"},"data":{"x":"1"}}"#).isEmpty)
        #expect(Self.hints(#"{"aps":{"alert":"t","thread-id":"r"},"data":{"thread-id":"r"}}"#).isEmpty)
        #expect(Self.hints("[1,2]").isEmpty)
    }

    @Test func anFCMLegacyChatBodyIsExplainedPartByPart() {
        let hints = Self.hints(#"""
            {"to":"x","mutable_content":true,"notification":{"body":"b","title":"t","sound":"default","badge":100},
             "data":{"thread-id":"room-1"}}
            """#)
        #expect(hints.count == 4)
        #expect(hints[0].contains("FCM would have sent aps.alert {title, body}, aps.sound, aps.badge"))
        #expect(hints[1].contains("FCM request body"))
        #expect(hints[2] == "mutable_content is FCM's legacy field: APNs reads aps.mutable-content")
        #expect(hints[3].hasPrefix("data.thread-id is a custom key"))
    }

    @Test func oneSignalFieldsAndFCMsApnsObjectAreNamed() {
        let oneSignal = Self.hints(#"{"headings":{"en":"t"},"contents":{"en":"b"},"thread_id":"r"}"#)
        #expect(oneSignal.count == 2)
        #expect(oneSignal.first?.contains("OneSignal would have sent aps.alert {title: headings.en, body: contents.en}") == true)
        #expect(oneSignal.last == "thread_id is OneSignal's field: APNs groups by aps.thread-id")
        #expect(Self.hints(#"{"apns":{"payload":{"aps":{"alert":"x"}}}}"#).first?.contains("FCM's per-platform override") == true)
    }
}
