import APNsProtocol
import Foundation
import SpawnedProcess
import Testing
import VirtualDevices

@testable import APNsEmulator
@testable import EmulatorControl
@testable import FrontDoors

/// OneSignal's official Python client and the community onesignal-sdk (pinned, from PyPI) creating notifications
/// through the OneSignal front door, each pointed at it by its own host option (`scripts/test/onesignal_clients.py`);
/// what reaches APNs is read from the journal, and the badge count OneSignal keeps from its subscription.
@Suite("OneSignal clients through the front door", .timeLimit(.minutes(10)))
struct OneSignalClientTests {
    struct Running {
        let emulator: Emulator
        let endpoints: EmulatorEndpoints
        var services: EmulatorServices { emulator.services }
        var apps: OneSignalApps

        init() throws {
            var c = EmulatorConfiguration.inProcess(certificatesDirectory: AioapnsPaths.certificates.path, shutdownGraceSeconds: 1)
            c.frontDoorPort = 0
            (emulator, _) = try Emulator.withFrontDoors(configuration: c)
            endpoints = try emulator.start()
            let doors = try #require(emulator.extensions.compactMap { $0 as? FrontDoorsControlAPI }.first)
            apps = doors.frontDoors.oneSignal.apps
        }

        /// A subscription of the sample app for a freshly issued production token, logged in as `user`.
        func subscribe(_ user: String) throws -> (OneSignalSubscription, apns: String) {
            let apns = try services.tokens.issue(bundleId: "com.example.app", environment: .production, now: services.clock.now()).token
            let sub = try #require(apps.subscribe(appId: OneSignalSampleApp.appId, apnsToken: apns, sandbox: false, externalId: user))
            return (sub, apns)
        }

        func send(_ client: String, user: String, extra: [String] = [], key: String = OneSignalSampleApp.restApiKey) async throws
            -> [String: Any]
        {
            let python = try await PythonVenv.providerClients.python()
            let script = AioapnsPaths.packageRoot.appendingPathComponent("scripts/test/onesignal_clients.py").path
            let frontDoor = try #require(endpoints.frontDoors).replacingOccurrences(of: "https://", with: "")
            let output = try await SpawnedProcess.runToCompletion(
                python, [script, "--client", client, "--front-door", frontDoor, "--ca", AioapnsPaths.ca.path,
                         "--app-id", OneSignalSampleApp.appId, "--rest-api-key", key, "--external-id", user] + extra,
                directory: AioapnsPaths.packageRoot, timeout: .seconds(120))
            let line = output.stdout.split(separator: "\n").last { $0.hasPrefix("{") }
            guard output.status == 0, let line, let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { throw AioapnsSetupError("onesignal_clients.py printed no result\n" + output.transcript) }
            return result
        }
    }

    @Test(arguments: ["official", "sdk"])
    func aNotificationWithThreadAndIncreaseReachesAPNsAsOneSignalWouldSendIt(client: String) async throws {
        let emu = try Running()
        defer { emu.emulator.shutdown() }
        let (sub, apns) = try emu.subscribe("user-1")
        for expected in [1, 2] {
            let result = try await emu.send(client, user: "user-1", extra: ["--thread-id", "room-1", "--badge-type", "Increase"])
            #expect(result["ok"] as? Bool == true, "\(result)")
            let id = try #require(result["id"] as? String)
            let entry = try #require(emu.services.journal.query(JournalFilter(token: apns)).last)
            #expect(entry.status == 200)
            let payload = try #require(entry.payload.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            let aps = try #require(payload["aps"] as? [String: Any])
            #expect(aps["alert"] as? [String: String] == ["title": "Room 1", "body": "hello"])
            #expect(aps["thread-id"] as? String == "room-1")
            #expect(aps["badge"] as? Int == expected)
            #expect(aps["mutable-content"] as? Int == 1)
            let custom = try #require(payload["custom"] as? [String: Any])
            #expect(custom["i"] as? String == id)
            #expect(custom["u"] as? String == "myapp://room/1")
        }
        #expect(emu.apps.subscription(sub.id)?.badgeCount == 2)
    }

    @Test func aWrongRESTKeyIsRefusedAndAnUnknownUserReachesNobody() async throws {
        let emu = try Running()
        defer { emu.emulator.shutdown() }
        _ = try emu.subscribe("user-1")
        let denied = try await emu.send("official", user: "user-1", key: "wrong")
        #expect(denied["ok"] as? Bool == false)
        #expect(denied["status"] as? Int == 403, "\(denied)")
        let nobody = try await emu.send("sdk", user: "nobody")
        #expect(nobody["ok"] as? Bool == true)
        #expect(nobody["errors"] as? [String] == ["All included players are not subscribed"], "\(nobody)")
        #expect(emu.services.journal.query(JournalFilter()).isEmpty)
    }
}
