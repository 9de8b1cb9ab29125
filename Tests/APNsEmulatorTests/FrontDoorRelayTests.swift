import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport
import StateStore
import Testing
import VirtualDevices

@testable import APNsEmulator
@testable import EmulatorControl
@testable import FrontDoors

/// The relay under more than one tenant: each project sends as its own provider (APNs ties a connection to the
/// first team and key on it), and OneSignal's kept badge count under concurrent notifications.
@Suite("Front-door relay", .timeLimit(.minutes(3)))
struct FrontDoorRelayTests {
    static func start() throws -> (Emulator, FrontDoors) {
        var c = EmulatorConfiguration.inProcess(certificatesDirectory: AioapnsPaths.certificates.path, shutdownGraceSeconds: 1)
        c.frontDoorPort = 0
        let (emulator, _) = try Emulator.withFrontDoors(configuration: c)
        _ = try emulator.start()
        let doors = try #require(emulator.extensions.compactMap { $0 as? FrontDoorsControlAPI }.first).frontDoors
        return (emulator, doors)
    }

    static func legacySend(_ doors: FrontDoors, key: String, to token: String) -> [String: Any] {
        let answer = doors.router.handle(HTTP1Request(
            method: "POST", path: "/fcm/send", headers: [H2Header("authorization", "key=" + key)],
            body: Array(#"{"to":"\#(token)","notification":{"title":"t","body":"b"}}"#.utf8)))
        return (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
    }

    @Test func twoProjectsOfDifferentTeamsEachSendAsTheirOwnProvider() throws {
        let (emulator, doors) = try Self.start()
        defer { emulator.shutdown() }
        let services = emulator.services
        // A second project, its own team and APNs key, registered with the emulator as Apple would know it.
        let key = try PrivateKey.generateP256()
        try services.keys.register(ProviderKeyRecord(keyId: "OTHERKEY01", teamId: "OTHERTEAM1", kind: .team,
                                                     publicKeyPem: key.publicKeyPEM, createdAt: services.clock.now()))
        let sample = try #require(doors.fcm.projects.project(FCMSampleProject.projectIdDefault))
        doors.fcm.projects.put(FCMProject(projectId: "other", projectNumber: 42, serviceAccounts: sample.serviceAccounts,
                                          serverKey: "other-server-key", apnsKeyId: "OTHERKEY01", apnsTeamId: "OTHERTEAM1",
                                          apnsKey: key))
        for (number, serverKey, bundle) in [(FCMSampleProject.projectNumber, FCMSampleProject.serverKey, "com.example.app"),
                                            (42, "other-server-key", "com.other.app"), (FCMSampleProject.projectNumber,
                                            FCMSampleProject.serverKey, "com.example.app")] {
            let apns = try services.tokens.issue(bundleId: bundle, environment: .production, now: services.clock.now()).token
            let fcm = FCMRegistrationToken(projectNumber: number, bundleId: bundle, sandbox: false, apnsToken: apns).text
            let body = Self.legacySend(doors, key: serverKey, to: fcm)
            #expect(body["success"] as? Int == 1, "\(bundle): \(body)")
            #expect(services.journal.query(JournalFilter(token: apns)).last?.status == 200)
        }
    }

    @Test func concurrentIncreasesEachSeeTheOneBefore() async throws {
        let (emulator, doors) = try Self.start()
        defer { emulator.shutdown() }
        let services = emulator.services
        let apns = try services.tokens.issue(bundleId: "com.example.app", environment: .production, now: services.clock.now()).token
        let sub = try #require(doors.oneSignal.apps.subscribe(appId: OneSignalSampleApp.appId, apnsToken: apns, sandbox: false,
                                                              externalId: "user-1"))
        let body = #"{"app_id":"\#(OneSignalSampleApp.appId)","include_subscription_ids":["\#(sub.id)","\#(sub.id)"],"#
            + #""contents":{"en":"x"},"ios_badgeType":"Increase","ios_badgeCount":1}"#
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    _ = doors.router.handle(HTTP1Request(
                        method: "POST", path: "/notifications",
                        headers: [H2Header("authorization", "Key " + OneSignalSampleApp.restApiKey)], body: Array(body.utf8)))
                }
            }
        }
        // Eight notifications, the subscription named twice in each: one push each, badges 1…8, none repeated.
        let badges = services.journal.query(JournalFilter(token: apns)).compactMap { entry -> Int? in
            let payload = entry.payload.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return (payload?["aps"] as? [String: Any])?["badge"] as? Int
        }
        #expect(badges.sorted() == Array(1...8))
        #expect(doors.oneSignal.apps.subscription(sub.id)?.badgeCount == 8)
    }
}
