import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport
import VirtualDevices

/// The front doors for senders that do not speak APNs: FCM (and Google's OAuth token endpoint) and OneSignal on one
/// TLS listener whose certificate also names `fcm.googleapis.com`, `oauth2.googleapis.com`, `onesignal.com` and
/// `api.onesignal.com`. Every message becomes the APNs request the provider would send, made to this emulator's own
/// APNs listeners.
public final class FrontDoors: Sendable {
    package let fcm: FCMFrontDoor
    package let oneSignal: OneSignalFrontDoor
    package let log: FrontDoorLog
    let router: FrontDoorRouter
    private let relay: APNsRelay
    private let server: HTTP1Server

    /// - Parameters:
    ///   - certificatesDirectory: the development set (`server.pem`, `server-key.pem`, `ca.pem`, and the sample
    ///     project's `fcm-service-account.json` when present).
    ///   - legacyShutDown: answer the FCM legacy API as after its shutdown.
    ///   - devices: the virtual devices, whose apps' OneSignal SDKs register subscriptions.
    package init(certificatesDirectory: String, clock: any EmulatorClock, legacyShutDown: Bool, devices: DeviceFarm? = nil) throws {
        let dir = URL(fileURLWithPath: certificatesDirectory)
        func text(_ name: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path) else {
                throw FrontDoorSetupError("cannot read \(dir.appendingPathComponent(name).path)")
            }
            return String(decoding: data, as: UTF8.self)
        }
        let sample = try? FCMSampleProject.load(from: certificatesDirectory).get()
        let projects = FCMProjects(sample.map { [$0] } ?? [])
        relay = APNsRelay(caFile: dir.appendingPathComponent("ca.pem").path)
        log = FrontDoorLog()
        fcm = FCMFrontDoor(projects: projects, relay: relay, log: log, clock: clock, legacyShutDown: legacyShutDown)
        let apps = OneSignalApps(OneSignalSampleApp.load(from: certificatesDirectory).map { [$0] } ?? []) { [weak devices] in
            devices.map(Self.hostedSubscriptions) ?? []
        }
        oneSignal = OneSignalFrontDoor(apps: apps, relay: relay, log: log, clock: clock)
        router = FrontDoorRouter(fcm: fcm, oneSignal: oneSignal)
        server = HTTP1Server(handler: router, maxBodyBytes: FCMFrontDoor.maxBodyBytes, threads: 4,
                             connectionLimit: 1000, idleTimeoutSeconds: 30,
                             tls: (try text("server.pem"), try text("server-key.pem")))
    }

    /// Listens on `host:port` (0 picks one) and relays to the emulator's APNs listeners; returns the bound address.
    public func start(host: String, port: Int, apns endpoints: EmulatorEndpoints) throws -> SocketAddress {
        relay.point(at: RelayTarget(dialing: endpoints))
        return try server.start(host: host, port: port)
    }

    /// The push subscriptions of virtual apps that link the OneSignal SDK and have a token, in device order.
    static func hostedSubscriptions(_ farm: DeviceFarm) -> [OneSignalSubscription] {
        farm.devices().flatMap { device in
            device.installedApps.compactMap { app -> OneSignalSubscription? in
                guard let sdk = app.configuration.pushSDKs.oneSignal, let token = app.token else { return nil }
                let sandbox = app.configuration.build.tokenEnvironment == .sandbox
                return OneSignalSubscription(
                    id: HostedPushSDKs.subscriptionId(appId: sdk.appId, apnsToken: token), appId: sdk.appId, apnsToken: token,
                    environment: sandbox ? "sandbox" : "production", externalId: sdk.externalId, badgeCount: 0)
            }
        }
    }

    public func shutdown() {
        server.stop()
        relay.shutdown()
    }

}
