import APNsProtocol
import Testing

@testable import APNsEmulator

@Suite("QueuedPush: the accepted push on its way to a device")
struct QueuedPushTests {
    static func push(apnsId: String = "id-1", token: String = "aa", bundleId: String = "com.example.app",
                     topic: String = "com.example.app.voip", pushType: PushType = .alert, collapseId: String? = nil,
                     priority: Int = 10, expiration: Int64? = nil, payload: String = #"{"aps":{"alert":"hi"}}"#,
                     environment: APNsEnvironment = .sandbox, at: Millis = 1_000) -> QueuedPush {
        QueuedPush(apnsId: apnsId, token: token, bundleId: bundleId, topic: topic, pushType: pushType,
                   priority: priority, expiration: expiration, collapseId: collapseId, payload: Array(payload.utf8),
                   environment: environment, acceptedAt: at)
    }

    @Test func readsEveryFieldFromTheAcceptedPushItCarries() {
        let p = Self.push(collapseId: "c", priority: 5, expiration: 77)
        #expect(p.apnsId == "id-1")
        #expect(p.token == "aa")
        #expect(p.bundleId == "com.example.app" && p.topic == "com.example.app.voip")
        #expect(p.pushType == .alert && p.priority == 5 && p.expiration == 77 && p.collapseId == "c")
        #expect(p.payload == Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        #expect(p.environment == .sandbox && p.acceptedAt == 1_000)
        // Built from its parts, the payload is scanned as the validator would have.
        #expect(p.accepted.payloadSummary.hasAlert)
        // Built from an accepted push, it is that push, not a copy of its fields.
        let again = QueuedPush(p.accepted, acceptedAt: 2_000)
        #expect(again.accepted === p.accepted)
    }

    @Test func pushesBuiltApartAreEqualOnlyWhenEveryFieldIs() {
        #expect(Self.push() == Self.push())
        #expect(Self.push() != Self.push(apnsId: "id-2"))
        #expect(Self.push() != Self.push(token: "bb"))
        #expect(Self.push() != Self.push(bundleId: "com.example.other"))
        #expect(Self.push() != Self.push(topic: "com.example.app"))
        #expect(Self.push() != Self.push(pushType: .background))
        #expect(Self.push() != Self.push(environment: .production))
        #expect(Self.push() != Self.push(collapseId: "c"))
        #expect(Self.push() != Self.push(priority: 5))
        #expect(Self.push() != Self.push(expiration: 0))
        #expect(Self.push() != Self.push(payload: "{}"))
        #expect(Self.push() != Self.push(at: 1_001))
        let p = Self.push()
        #expect(QueuedPush(p.accepted, acceptedAt: 1_000) == p)
        #expect(QueuedPush(p.accepted, acceptedAt: 1_001) != p)
    }
}
