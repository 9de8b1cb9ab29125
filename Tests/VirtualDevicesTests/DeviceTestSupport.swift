import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import Testing

@testable import EmulatorControl

@testable import VirtualDevices

/// The bundled certs/ folder at the package root.
let bundledCertificates = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("certs").path

/// Runs blocking work on its own thread so the cooperative pool (2 threads here) keeps serving tests.
func offPool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            body()
            cont.resume()
        }
    }
}

/// An in-process emulator with devices: pushes go over real TLS + HTTP/2 with our client; devices are
/// driven through the control API's handler (the same code the HTTP port runs, without the socket).
struct DeviceHarness {
    let emu: TestEmulator
    let control: ControlAPI
    var farm: DeviceFarm { emu.devices }

    static func run(configure: (inout EmulatorConfiguration) -> Void = { _ in },
                    _ body: (DeviceHarness) async throws -> Void) async throws {
        let emu = try TestEmulator(certificatesDirectory: bundledCertificates, configure: configure)
        let harness = DeviceHarness(emu: emu, control: ControlAPI(services: emu.services, controlToken: nil,
                                                                  extensions: [DevicesControlAPI(farm: emu.devices)]))
        do {
            try await body(harness)
        } catch {
            await offPool { emu.shutdown() }
            throw error
        }
        await offPool { emu.shutdown() }
    }

    // MARK: Control

    @discardableResult
    func call(_ method: String, _ path: String, _ body: String? = nil, query: [(name: String, value: String)] = [])
        -> Reply
    {
        Reply(control.handle(HTTP1Request(method: method, path: path, query: query, body: Array((body ?? "").utf8))))
    }

    func appPath(_ device: String, _ bundle: String) -> String { "/_emulator/devices/\(device)/apps/\(bundle)" }

    /// Creates `device` with one app (`appJSON` is the app object) and returns the app path.
    @discardableResult
    func device(id: String = "phone", platform: String = "iOS", online: Bool = true, budget: Int = 3,
                app appJSON: String = #"{"bundleId":"com.example.app"}"#) throws -> String {
        let r = call("POST", "/_emulator/devices", #"{"id":"\#(id)","platform":"\#(platform)","online":\#(online),"#
                     + #""backgroundBudgetPerHour":\#(budget),"apps":[\#(appJSON)]}"#)
        try #require(r.status == 201, "device creation: \(r.text)")
        let bundle = try #require(((r.json["apps"] as? [[String: Any]])?.first?["bundleId"]) as? String)
        return appPath(id, bundle)
    }

    /// A plugin call; returns the call record.
    @discardableResult
    func pluginCall(_ app: String, _ body: String) -> Reply { call("POST", app + "/calls", body) }

    /// Authorization (alert, sound, badge) then GetToken: the token, as the app's backend would receive it.
    /// The calls launch the app; afterwards the user goes home, so the app is left suspended in the
    /// background (tests that need a terminated app say `terminate`).
    func authorizedToken(_ app: String) throws -> String {
        let auth = pluginCall(app, #"{"call":"RequestAuthorization","options":[1,2,3]}"#)
        try #require(auth.status == 200, "\(auth.text)")
        let r = pluginCall(app, #"{"call":"GetToken"}"#)
        let token = try #require((r.json["result"] as? [String: Any])?["token"] as? String, "GetToken: \(r.text)")
        action(app, #"{"action":"background"}"#)
        return token
    }

    @discardableResult
    func action(_ app: String, _ body: String) -> Reply { call("POST", app + "/actions", body) }

    func events(_ app: String) -> [[String: Any]] { call("GET", app + "/events").json["events"] as? [[String: Any]] ?? [] }

    func eventTypes(_ app: String) -> [String] { events(app).compactMap { $0["type"] as? String } }

    func centre(_ app: String) -> [String: Any] { call("GET", app + "/notifications").json }

    func notificationIds(_ app: String) -> [String] {
        (centre(app)["notifications"] as? [[String: Any]] ?? []).compactMap { $0["identifier"] as? String }
    }

    func appState(_ app: String) -> [String: Any] { call("GET", app).json }

    /// Moves the manual clock through the control API (as a scenario would), so due deliveries run.
    func advance(seconds: Int) {
        let r = call("POST", "/_emulator/clock/advance", #"{"seconds":\#(seconds)}"#)
        precondition(r.status == 200, r.text)
    }

    func fates(_ apnsId: String) -> [String] {
        (call("GET", "/_emulator/deliveries", query: [("apnsId", apnsId)]).json["deliveries"] as? [[String: Any]] ?? [])
            .compactMap { $0["fate"] as? String }
    }

    // MARK: APNs

    /// Sends one push over a fresh TLS connection with a fresh provider token; returns the response.
    func push(_ token: String, environment: APNsEnvironment = .sandbox, payload: String = #"{"aps":{"alert":"hello"}}"#,
              headers: [H2Header] = [], topic: String = "com.example.app") async throws -> H2Response {
        let connection = try await emu.connect(environment)
        defer { connection.close() }
        return try await connection.send(emu.push(to: token, environment: environment, jwt: try emu.sampleJWT(),
                                                  topic: topic, headers: headers, payload: payload))
    }

    /// Sends and requires 200; returns the apns-id.
    func accepted(_ token: String, environment: APNsEnvironment = .sandbox, payload: String = #"{"aps":{"alert":"hello"}}"#,
                  headers: [H2Header] = []) async throws -> String {
        let r = try await push(token, environment: environment, payload: payload, headers: headers)
        try #require(r.status == 200, "push answered \(r.status) \(r.bodyText)")
        return try #require(r["apns-id"])
    }
}

/// A control answer with the body parsed when it is a JSON object.
struct Reply {
    let response: HTTP1Response
    init(_ response: HTTP1Response) { self.response = response }
    var status: Int { response.status }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:] }
    var result: [String: Any] { json["result"] as? [String: Any] ?? [:] }
}
