import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import OpenSSLSupport
import Testing

@testable import EmulatorControl

@testable import VirtualDevices

/// The delivery engine on the real clock, in process (so the sanitizers see it): pushes over TLS + HTTP/2 to
/// devices in every shard, with a delivery latency.
@Suite("Delivery engine on the real clock")
struct DeliveryEngineTests {
    /// An emulator on the system clock with `latency`, one device per shard (each app registered), and a client.
    struct RealTime {
        let emulator: Emulator
        let farm: DeviceFarm
        let endpoints: EmulatorEndpoints
        let client: H2Client
        /// Token of each device, in shard order.
        let tokens: [String]

        static func start(latency: ShapingSettings.Latency) throws -> RealTime {
            var c = EmulatorConfiguration.inProcess(certificatesDirectory: bundledCertificates, eventLoops: 2,
                                                    shutdownGraceSeconds: 1)
            c.deliveryLatency = latency
            let (emulator, farm) = try Emulator.withDevices(configuration: c, clock: SystemClock())
            let endpoints = try emulator.start()
            do {
                return try prepare(emulator: emulator, farm: farm, endpoints: endpoints)
            } catch {
                emulator.shutdown()
                throw error
            }
        }

        private static func prepare(emulator: Emulator, farm: DeviceFarm, endpoints: EmulatorEndpoints) throws -> RealTime {
            var tokens: [String] = []
            var shardsHeld = Set<Int>()
            for i in 0..<200 where shardsHeld.count < farm.spread.count {
                let id = "rt-\(i)"
                guard shardsHeld.insert(farm.spread.shard(ofDevice: id)).inserted else { continue }
                _ = try farm.createDevice(DeviceConfiguration(id: id), apps: [AppConfiguration(bundleId: "com.example.app")])
                _ = try farm.call(.requestAuthorization(options: [.alert, .sound, .badge]), bundleId: "com.example.app", deviceId: id)
                _ = try farm.call(.getToken, bundleId: "com.example.app", deviceId: id)
                try farm.perform(.background, bundleId: "com.example.app", deviceId: id)
                tokens.append(try #require(try farm.app("com.example.app", on: id).token))
            }
            let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: endpoints.ca), eventLoops: 1)
            return RealTime(emulator: emulator, farm: farm, endpoints: endpoints, client: client, tokens: tokens)
        }

        /// `count` pushes over one connection, spread over the devices (or `only` these tokens) in turn; their apns-ids.
        func push(_ count: Int, only: [String]? = nil) async throws -> [String] {
            let tokens = only ?? self.tokens
            let key = try PrivateKey(pem: String(contentsOfFile: bundledCertificates + "/AuthKey_\(DevCertificates.sampleKeyId).p8",
                                                 encoding: .utf8))
            let jwt = try ProviderTokenSigner.makeToken(privateKey: key, keyId: DevCertificates.sampleKeyId,
                                                        teamId: DevCertificates.sampleTeamId, issuedAt: wallMillis() / 1000)
            let connection = try await client.connect(host: "127.0.0.1", port: endpoints.sandboxPort,
                                                      serverName: "api.sandbox.push.apple.com")
            defer { connection.close() }
            return try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<count {
                    let token = tokens[i % tokens.count]
                    group.addTask {
                        let r = try await connection.send(H2Request(
                            method: "POST", authority: "api.sandbox.push.apple.com:\(endpoints.sandboxPort)",
                            path: "/3/device/\(token)",
                            headers: [H2Header("authorization", "bearer \(jwt)"), H2Header("apns-topic", "com.example.app")],
                            body: Array(#"{"aps":{"alert":"hello"}}"#.utf8)))
                        guard r.status == 200, let id = r["apns-id"] else { throw PushRefused(status: r.status) }
                        return id.lowercased()
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        /// `farm.settle` on its own thread (it blocks).
        func settle(timeout: Duration) async -> Bool {
            await withCheckedContinuation { (cont: CheckedContinuation<Bool, Never>) in
                let farm = self.farm
                Thread.detachNewThread { cont.resume(returning: farm.settle(timeout: timeout)) }
            }
        }

        func stop() async {
            await offPool {
                client.shutdown()
                emulator.shutdown()
            }
        }
    }

    @Test func everyPushReachesItsDeviceInEveryShardOnceSettled() async throws {
        let rt = try RealTime.start(latency: .uniform(minMs: 5, maxMs: 60))
        do {
            let ids = try await rt.push(120)
            #expect(await rt.settle(timeout: .seconds(20)))
            let shown = rt.farm.fates().filter { $0.fate == .shown }
            #expect(Set(shown.map(\.apnsId)) == Set(ids), "every accepted push is shown once settled")
            #expect(shown.count == ids.count)
            #expect(Set(shown.map(\.deviceId)).count == rt.farm.spread.count, "devices of every shard got pushes")
            #expect(rt.farm.deliveryLatency().count == UInt64(ids.count))
            #expect(rt.farm.inFlight == 0)
        } catch {
            await rt.stop()
            throw error
        }
        await rt.stop()
    }

    @Test func aBurstToOneAppIsRecordedInTheOrderItWasAccepted() async throws {
        // Held for the same 50 ms, the burst reaches the shard in few batches, each handed to the app in one visit,
        // which must keep the pushes' order and give each its own fate at its own time.
        let rt = try RealTime.start(latency: .fixed(ms: 50))
        do {
            let token = rt.tokens[0]
            let ids = try await rt.push(80, only: [token])
            #expect(await rt.settle(timeout: .seconds(20)))
            let entries = rt.emulator.services.journal.query(JournalFilter(token: token)).sorted { $0.id < $1.id }
            let accepted = entries.map { $0.apnsId.lowercased() }
            let shownFates = rt.farm.fates().filter { $0.token == token && $0.fate == .shown }
            let shown = shownFates.map { $0.apnsId.lowercased() }
            #expect(accepted.count == 80 && Set(accepted) == Set(ids))
            #expect(shown == accepted, "one shown fate per push, in the order APNs accepted them")
            #expect(shownFates.map(\.at) == entries.map { $0.receivedAt + 50 }, "each at its own acceptance plus the latency")
            let device = try #require(rt.farm.fates().first { $0.token == token }?.deviceId)
            let centre = try rt.farm.app("com.example.app", on: device).notifications.compactMap { $0.apnsId?.lowercased() }
            #expect(Array(centre.reversed()) == accepted, "the notification centre, newest first, holds them in the same order")
        } catch {
            await rt.stop()
            throw error
        }
        await rt.stop()
    }

    @Test func aResetForgetsHeldPushesAndSettleDoesNotWaitForThem() async throws {
        let rt = try RealTime.start(latency: .fixed(ms: 60_000))
        do {
            _ = try await rt.push(20)
            #expect(rt.farm.inFlight == 20, "held for their minute")
            rt.farm.removeAll()
            let started = ContinuousClock.now
            #expect(await rt.settle(timeout: .seconds(30)))
            // Far short of the minute the pushes were held for; wide, as a loaded machine is slow to wake a waiter.
            #expect(ContinuousClock.now - started < .seconds(20))
            #expect(rt.farm.fates().isEmpty)
        } catch {
            await rt.stop()
            throw error
        }
        await rt.stop()
    }

    @Test func stoppingHandsOverThePushesStillHeld() async throws {
        let rt = try RealTime.start(latency: .fixed(ms: 60_000))
        let ids: [String]
        do {
            ids = try await rt.push(10)
        } catch {
            await rt.stop()
            throw error
        }
        #expect(rt.farm.fates().isEmpty, "a minute away")
        await rt.stop()
        #expect(Set(rt.farm.fates().filter { $0.fate == .shown }.map(\.apnsId)) == Set(ids),
                "none goes without a fate")
    }
}

struct PushRefused: Error {
    let status: Int
}
