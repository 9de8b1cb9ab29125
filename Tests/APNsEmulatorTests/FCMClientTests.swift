import APNsProtocol
import Foundation
import SpawnedProcess
import Testing
import VirtualDevices

@testable import APNsEmulator
@testable import EmulatorControl
@testable import FrontDoors

/// Google's own client libraries (firebase-admin, pyfcm; pinned, from PyPI) sending through the FCM front door:
/// the OAuth exchange with the sample service account, the v1 send, and the APNs request FCM makes of it, read
/// back from the emulator's journal. The libraries resolve Google's host names to the front door (as an
/// /etc/hosts line would; `scripts/test/fcm_clients.py`) and are otherwise unmodified.
@Suite("FCM clients through the front door", .timeLimit(.minutes(10)))
struct FCMClientTests {
    struct Running {
        let emulator: Emulator
        let endpoints: EmulatorEndpoints
        var services: EmulatorServices { emulator.services }

        init() throws {
            var c = EmulatorConfiguration.inProcess(certificatesDirectory: AioapnsPaths.certificates.path, shutdownGraceSeconds: 1)
            c.frontDoorPort = 0
            (emulator, _) = try Emulator.withFrontDoors(configuration: c)
            endpoints = try emulator.start()
        }

        /// An FCM registration token for a freshly issued sandbox APNs token of the sample app.
        func registrationToken(issued: Bool = true) throws -> (fcm: String, apns: String) {
            let apns = issued
                ? try services.tokens.issue(bundleId: "com.example.app", environment: .sandbox, now: services.clock.now()).token
                : String(repeating: "0f", count: 32)
            let token = FCMRegistrationToken(projectNumber: FCMSampleProject.projectNumber, bundleId: "com.example.app",
                                             sandbox: true, apnsToken: apns)
            return (token.text, apns)
        }

        func send(_ client: String, token: String) async throws -> [String: Any] {
            let python = try await PythonVenv.providerClients.python()
            let script = AioapnsPaths.packageRoot.appendingPathComponent("scripts/test/fcm_clients.py").path
            let frontDoor = try #require(endpoints.frontDoors).replacingOccurrences(of: "https://", with: "")
            let output = try await SpawnedProcess.runToCompletion(
                python, [script, "--client", client, "--front-door", frontDoor, "--ca", AioapnsPaths.ca.path,
                         "--service-account", AioapnsPaths.certificates.appendingPathComponent("fcm-service-account.json").path,
                         // One argument: a registration token may start with "-", which argparse would read as an option.
                         "--token=\(token)", "--title", "Room 1", "--body", "hello"],
                directory: AioapnsPaths.packageRoot, timeout: .seconds(120))
            let line = output.stdout.split(separator: "\n").last { $0.hasPrefix("{") }
            guard output.status == 0, let line, let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { throw AioapnsSetupError("fcm_clients.py printed no result\n" + output.transcript) }
            return result
        }
    }

    @Test(arguments: ["firebase-admin", "pyfcm"])
    func aMessageSentWithARealClientReachesAPNsAsFCMWouldSendIt(client: String) async throws {
        let emu = try Running()
        defer { emu.emulator.shutdown() }
        let (fcm, apns) = try emu.registrationToken()
        let result = try await emu.send(client, token: fcm)
        #expect(result["ok"] as? Bool == true, "\(result)")
        let name = try #require(result["name"] as? String)
        #expect(name.hasPrefix("projects/\(FCMSampleProject.projectIdDefault)/messages/0:"))
        let entry = try #require(emu.services.journal.query(JournalFilter(token: apns)).last)
        #expect(entry.status == 200)
        #expect(entry.topic == "com.example.app")
        let payload = try #require(entry.payload.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? [String: String] == ["title": "Room 1", "body": "hello"])
        #expect(payload["room"] as? String == "general")
        #expect(payload["gcm.message_id"] as? String == String(name.split(separator: "/").last!))
    }

    @Test func aTokenAPNsDoesNotKnowIsUnregisteredForFirebaseAdmin() async throws {
        let emu = try Running()
        defer { emu.emulator.shutdown() }
        let (fcm, _) = try emu.registrationToken(issued: false)
        let result = try await emu.send("firebase-admin", token: fcm)
        #expect(result["ok"] as? Bool == false)
        #expect(result["error"] as? String == "UnregisteredError", "\(result)")
        let logged = try #require(emu.emulator.services.journal.query(JournalFilter()).last)
        #expect(logged.status == 400 && logged.reason == "BadDeviceToken")
    }
}
