import APNsProtocol
import Foundation
import Testing
import VirtualDevices

@testable import EmulatorControl

@testable import APNsEmulator

/// The real third-party sender Python aioapns (pinned, from PyPI) against the in-process emulator.
///
/// aioapns is a real client with quirks of its own: it offers no ALPN, sends `host`
/// instead of `:authority`, and matches answers to requests by `apns-id`. Every assertion here reads what
/// aioapns itself reported (its `NotificationResult`), plus the emulator's journal for what went over the
/// wire. How aioapns is pointed at the emulator (it has no option for another host, port or clock) is
/// documented in `scripts/test/aioapns_sender.py`. The first run creates a venv under the user's cache
/// folder (see `PythonVenv`); without PyPI these tests fail, they never skip.
@Suite("aioapns against the emulator", .timeLimit(.minutes(10)))
struct AioapnsTests {
    /// A started emulator on ephemeral ports with in-memory state, shut down by `stop`.
    struct Running {
        let emulator: Emulator
        let endpoints: EmulatorEndpoints
        /// The virtual devices pushes reach.
        let devices: DeviceFarm
        var services: EmulatorServices { emulator.services }

        init() throws {
            var c = EmulatorConfiguration()
            c.productionPort = 0
            c.sandboxPort = 0
            c.controlPort = 0
            c.ephemeral = true
            c.certificatesDirectory = AioapnsPaths.certificates.path
            c.shutdownGraceSeconds = 1
            (emulator, devices) = try Emulator.withDevices(configuration: c)
            endpoints = try emulator.start()
        }

        /// A fresh token for the sample app, as a device's registration would return it.
        func issueToken(_ environment: APNsEnvironment = .production) throws -> String {
            try services.tokens.issue(bundleId: "com.example.app", environment: environment, now: services.clock.now())
                .token
        }

        /// The journal entry for `apnsId`, waiting briefly in case the answer left before it was recorded.
        func journalEntry(apnsId: String) async throws -> JournalEntry? {
            for _ in 0..<100 {
                if let entry = services.journal.query(JournalFilter(apnsId: apnsId)).last { return entry }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }

        func stop() { emulator.shutdown() }
    }

    @Test func validPushSucceedsAndTheJournalHasTheApnsIdAioapnsSent() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let token = try emu.issueToken()
        let apnsId = UUID().uuidString.lowercased()

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, sends: [.init(deviceToken: token, apnsId: apnsId, timeToLive: 3600)]
        ).run()
        let result = try #require(outcome.results.first)
        #expect(result.error == nil, "\(outcome.output.transcript)")
        #expect(result.isSuccessful == true, "\(outcome.output.transcript)")
        #expect(result.status == "200")
        #expect(result.description == nil)
        #expect(result.notificationId == apnsId)

        let entry = try #require(try await emu.journalEntry(apnsId: apnsId), "no journal entry for \(apnsId)")
        #expect(entry.status == 200)
        #expect(entry.apnsId == apnsId)
        #expect(entry.token == token)
        #expect(entry.topic == "com.example.app")
        #expect(entry.pushType == "alert")
        #expect(entry.priority == 10)
        #expect(entry.environment == .production)
        #expect(entry.authMode == "token")
        #expect(entry.keyId == "DEVKEY1234")
        #expect(entry.teamId == "DEVTEAM123")
        #expect(entry.expiration != nil)
        #expect(entry.payload.map { $0.contains("Hello from aioapns") } == true)
    }

    /// aioapns sends `host` and no `:authority` (spec, "What real clients do"); the journal keeps the wire
    /// headers in order, so this pins both aioapns' behaviour and the emulator's tolerance of it.
    @Test func aioapnsSendsHostInsteadOfAuthorityAndIsStillServed() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let token = try emu.issueToken()
        let apnsId = UUID().uuidString.lowercased()

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, sends: [.init(deviceToken: token, apnsId: apnsId)]
        ).run()
        #expect(outcome.results.first?.isSuccessful == true, "\(outcome.output.transcript)")

        let entry = try #require(try await emu.journalEntry(apnsId: apnsId), "no journal entry for \(apnsId)")
        let names = entry.headers.compactMap(\.first)
        #expect(!names.contains(":authority"), "headers: \(entry.headers)")
        #expect(entry.headers.contains(["host", "api.push.apple.com"]), "headers: \(entry.headers)")
        #expect(entry.headers.contains(["apns-id", apnsId]), "headers: \(entry.headers)")
    }

    /// With `use_sandbox` aioapns names api.development.push.apple.com; on the sandbox listener that host
    /// makes the request a sandbox one, where the sandbox token lives.
    @Test func sandboxClientReachesASandboxToken() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let token = try emu.issueToken(.sandbox)
        let apnsId = UUID().uuidString.lowercased()

        let outcome = try await AioapnsSender(
            port: emu.endpoints.sandboxPort, useSandbox: true, sends: [.init(deviceToken: token, apnsId: apnsId)]
        ).run()
        let result = try #require(outcome.results.first)
        #expect(result.isSuccessful == true, "\(outcome.output.transcript)")
        let entry = try #require(try await emu.journalEntry(apnsId: apnsId), "no journal entry for \(apnsId)")
        #expect(entry.environment == .sandbox)
        #expect(entry.headers.contains(["host", "api.development.push.apple.com"]), "headers: \(entry.headers)")
    }

    @Test func unknownTokenIsBadDeviceToken() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let unknown = String(repeating: "ab", count: 32)

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, sends: [.init(deviceToken: unknown)]
        ).run()
        let result = try #require(outcome.results.first)
        #expect(result.error == nil, "\(outcome.output.transcript)")
        #expect(result.isSuccessful == false)
        #expect(result.status == "400")
        #expect(result.description == "BadDeviceToken")
        #expect(result.timestamp == nil)
    }

    @Test func unregisteredTokenIsUnregisteredWithTheUnregisterTime() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let token = try emu.issueToken()
        // A whole second an hour ago: distinct from "now", so a server answering with its own clock shows.
        let unregisteredAt = (emu.services.clock.now() / 1000 - 3600) * 1000
        _ = try #require(try emu.services.tokens.unregister(token, at: unregisteredAt))

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, sends: [.init(deviceToken: token)]
        ).run()
        let result = try #require(outcome.results.first)
        #expect(result.error == nil, "\(outcome.output.transcript)")
        #expect(result.isSuccessful == false)
        #expect(result.status == "410")
        #expect(result.description == "Unregistered")
        #expect(result.timestamp == unregisteredAt)
    }

    /// A third-party sender's push lands on a virtual device: the token came from the device's GetToken, the
    /// app in the foreground presents it and the plugin fires NotificationPresented with aioapns' payload.
    @Test func aioapnsPushReachesAVirtualDeviceAndIsPresented() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let (devices, endpoints) = (emu.devices, emu.endpoints)
        _ = try devices.createDevice(DeviceConfiguration(id: "phone"))
        _ = try devices.install(AppConfiguration(bundleId: "com.example.app", build: .appStore), on: "phone")
        _ = try devices.call(.requestAuthorization(options: [.alert, .sound, .badge]), bundleId: "com.example.app",
                             deviceId: "phone")
        guard case .completed(.success(.token(let token)))? = try devices.call(
            .getToken, bundleId: "com.example.app", deviceId: "phone")?.state else {
            Issue.record("GetToken did not complete")
            return
        }
        try devices.perform(.launch, bundleId: "com.example.app", deviceId: "phone")
        let apnsId = UUID().uuidString.lowercased()

        let outcome = try await AioapnsSender(
            port: endpoints.productionPort, sends: [.init(deviceToken: token, apnsId: apnsId)]
        ).run()
        #expect(outcome.results.first?.isSuccessful == true, "\(outcome.output.transcript)")
        let app = try devices.app("com.example.app", on: "phone")
        guard case .notificationPresented(let n)? = app.events.last?.event else {
            Issue.record("no NotificationPresented: \(app.events)")
            return
        }
        #expect(n.body == "Hello from aioapns")
        #expect(n.identifier == apnsId)
        #expect(devices.fates(apnsId: apnsId).map(\.fate) == [.shown])
    }

    @Test func tokenSignedTwoHoursAgoIsExpiredProviderToken() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let token = try emu.issueToken()

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, expiredJwt: true, sends: [.init(deviceToken: token)]
        ).run()
        let result = try #require(outcome.results.first)
        #expect(result.error == nil, "\(outcome.output.transcript)")
        #expect(result.isSuccessful == false)
        #expect(result.status == "403")
        #expect(result.description == "ExpiredProviderToken")
    }

    /// aioapns pairs each answer with its request only through the echoed `apns-id`; an id echoed in another
    /// case would leave the request waiting forever (here: the script's per-send timeout reports an error).
    @Test func concurrentPushesOnOneConnectionAreMatchedByTheirUppercaseApnsIds() async throws {
        let emu = try Running()
        defer { emu.stop() }
        let good = try emu.issueToken()
        let gone = try emu.issueToken()
        let unregisteredAt = (emu.services.clock.now() / 1000 - 60) * 1000
        _ = try emu.services.tokens.unregister(gone, at: unregisteredAt)
        let sends: [AioapnsSender.Send] = [
            .init(deviceToken: good, apnsId: UUID().uuidString),
            .init(deviceToken: String(repeating: "0", count: 64), apnsId: UUID().uuidString),
            .init(deviceToken: gone, apnsId: UUID().uuidString),
            .init(deviceToken: good, apnsId: UUID().uuidString),
        ]

        let outcome = try await AioapnsSender(
            port: emu.endpoints.productionPort, concurrent: true, sends: sends
        ).run()
        for (send, result) in zip(sends, outcome.results) {
            #expect(result.error == nil, "\(send.apnsId ?? "") \(outcome.output.transcript)")
            #expect(result.notificationId == send.apnsId)
        }
        #expect(outcome.results.map(\.status) == ["200", "400", "410", "200"], "\(outcome.output.transcript)")
        #expect(outcome.results.map(\.description) == [nil, "BadDeviceToken", "Unregistered", nil])
        #expect(outcome.results[2].timestamp == unregisteredAt)
    }
}
