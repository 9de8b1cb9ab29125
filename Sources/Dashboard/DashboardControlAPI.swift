import APNsEmulator
import APNsProtocol
import EmulatorControl
import Foundation
import FrontDoors
import H2Transport
import OpenSSLSupport
import VirtualDevices

/// The dashboard on the control port: the page at `/`, its script and stylesheet (no state in them, so they are
/// served without the control token; every call the script makes carries it), the compose form's send, and the
/// log of scenario runs the runner reports.
package final class DashboardControlAPI: EmulatorExtension {
    enum Operation: String, CaseIterable {
        case dashboardPage, dashboardPageAlias, dashboardScript, dashboardStyle, dashboardSend
        case listScenarioRuns, reportScenarioRun, clearScenarioRuns
    }

    private let farm: DeviceFarm
    private let services: EmulatorServices
    private let relay: APNsRelay
    private let certificatesDirectory: String
    private let runs = ScenarioRunLog()

    init(farm: DeviceFarm, services: EmulatorServices, certificatesDirectory: String) {
        self.farm = farm
        self.services = services
        self.certificatesDirectory = certificatesDirectory
        relay = APNsRelay(caFile: URL(fileURLWithPath: certificatesDirectory).appendingPathComponent("ca.pem").path)
    }

    package var routes: [(method: String, pattern: String, operation: String)] {
        [
            ("GET", "/", Operation.dashboardPage.rawValue),
            ("GET", "/_emulator/dashboard", Operation.dashboardPageAlias.rawValue),
            ("GET", "/_emulator/dashboard/app.js", Operation.dashboardScript.rawValue),
            ("GET", "/_emulator/dashboard/style.css", Operation.dashboardStyle.rawValue),
            ("POST", "/_emulator/dashboard/send", Operation.dashboardSend.rawValue),
            ("GET", "/_emulator/scenario-runs", Operation.listScenarioRuns.rawValue),
            ("POST", "/_emulator/scenario-runs", Operation.reportScenarioRun.rawValue),
            ("DELETE", "/_emulator/scenario-runs", Operation.clearScenarioRuns.rawValue),
        ]
    }

    package var operationsWithQuery: Set<String> { [] }
    /// The send waits for APNs (a delay fault or shaped latency can make that long): other calls go on meanwhile.
    package var waitingOperations: Set<String> { [Operation.dashboardSend.rawValue] }
    package var publicOperations: Set<String> {
        [Operation.dashboardPage.rawValue, Operation.dashboardPageAlias.rawValue, Operation.dashboardScript.rawValue,
         Operation.dashboardStyle.rawValue]
    }

    package func perform(_ operation: String, _ request: ControlRequest) throws -> HTTP1Response {
        switch Operation(rawValue: operation) {
        case .dashboardPage, .dashboardPageAlias: return Self.asset(DashboardPage.html, type: "text/html; charset=utf-8")
        case .dashboardScript: return Self.asset(DashboardScript.js, type: "text/javascript; charset=utf-8")
        case .dashboardStyle: return Self.asset(DashboardStyle.css, type: "text/css; charset=utf-8")
        case .dashboardSend: return try send(request)
        case .listScenarioRuns:
            try request.expectEmptyBody()
            return ControlAPIResponse.bytes(runs.json, headers: [H2Header("content-type", "application/json")])
        case .reportScenarioRun: return try report(request)
        case .clearScenarioRuns:
            try request.expectEmptyBody()
            runs.removeAll()
            return ControlAPIResponse.noContent()
        case nil: throw ControlAPIError.notFound(operation)
        }
    }

    /// The page runs only its own script and cannot be framed (no inline script, no other origin).
    static func asset(_ text: String, type: String) -> HTTP1Response {
        HTTP1Response(status: 200, headers: [
            H2Header("content-type", type), H2Header("cache-control", "no-store"), H2Header("x-content-type-options", "nosniff"),
            H2Header("content-security-policy", "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'"),
            H2Header("x-frame-options", "DENY"),
        ], body: Array(text.utf8))
    }

    /// `{"deviceId", "bundleId", "payload", "pushType"?, "priority"?, "collapseId"?, "expiresInSeconds"?}`: a push to
    /// the app's token through the APNs listener, signed with the sample key, answered `{status, reason, apnsId}`.
    private func send(_ request: ControlRequest) throws -> HTTP1Response {
        let document: JSONDocument
        switch JSONDocument.parse(request.http.body) {
        case .success(let d) where d.value.kind == .object: document = d
        case .success: throw ControlAPIError.invalidField("body", message: "the body must be a JSON object")
        case .failure(let e): throw ControlAPIError.malformedJSON("request body is not valid JSON: \(e)")
        }
        let body = document.value
        let allowed: Set<String> = ["deviceId", "bundleId", "payload", "pushType", "priority", "collapseId", "expiresInSeconds"]
        if let unknown = body.keys.first(where: { !allowed.contains($0) }) {
            throw ControlAPIError.unknownField(unknown, expected: allowed.sorted(), location: .body)
        }
        guard let deviceId = body["deviceId"]?.string, let bundleId = body["bundleId"]?.string else {
            throw ControlAPIError.invalidField("deviceId", message: "deviceId and bundleId name the app to push to")
        }
        guard let payload = body["payload"], payload.kind == .object else {
            throw ControlAPIError.invalidField("payload", message: "payload must be a JSON object")
        }
        let app: VirtualApp
        do { app = try farm.app(bundleId, on: deviceId) } catch { throw ControlAPIError.notFound("\(error)") }
        guard let token = app.token else {
            throw ControlAPIError.conflict("\(bundleId) on \(deviceId) has no token yet (it has not called GetToken)")
        }
        let pushType = body["pushType"]?.string ?? "alert"
        guard let type = PushType(rawValue: pushType) else {
            throw ControlAPIError.invalidField("pushType", message: "pushType \(pushType) is not an APNs push type")
        }
        let nowSeconds = services.clock.now() / 1000
        var headers: [(name: String, value: String)] = [("apns-push-type", pushType),
                                                        ("apns-topic", bundleId + type.topicSuffix)]
        if let node = body["priority"] {
            guard let priority = node.integer, (0...10).contains(priority) else {
                throw ControlAPIError.invalidField("priority", message: "priority must be a number (APNs takes 10, 5 or 1)")
            }
            headers.append(("apns-priority", String(priority)))
        }
        if let node = body["collapseId"] {
            guard let collapse = node.string else { throw ControlAPIError.invalidField("collapseId", message: "collapseId must be a string") }
            headers.append(("apns-collapse-id", collapse))
        }
        if let node = body["expiresInSeconds"] {
            guard let seconds = node.integer, (0...(10 * 366 * 86_400)).contains(seconds) else {
                throw ControlAPIError.invalidField("expiresInSeconds", message: "expiresInSeconds must be 0 to ten years in seconds")
            }
            // 0 is APNs' own "deliver once, now or never", not the time now.
            headers.append(("apns-expiration", seconds == 0 ? "0" : String(nowSeconds + seconds)))
        }
        let push = RelayedPush(apnsToken: token, sandbox: app.configuration.build.tokenEnvironment == .sandbox, headers: headers,
                               payload: JSONText.bytes(payload.foundation))
        let keyFile = URL(fileURLWithPath: certificatesDirectory).appendingPathComponent(DevCertificates.FileName.authKey).path
        guard let pem = FileManager.default.contents(atPath: keyFile), let key = try? PrivateKey(pem: String(decoding: pem, as: UTF8.self))
        else { throw ControlAPIError.unavailable("the sample key \(keyFile) cannot be read: the dashboard signs with it") }
        switch relay.send(push, keyId: DevCertificates.sampleKeyId, teamId: DevCertificates.sampleTeamId, key: key, nowSeconds: nowSeconds) {
        case .failure(let error): throw ControlAPIError.unavailable(error.message)
        case .success(let answer):
            var out: [String: Any] = ["status": answer.status]
            if let reason = answer.reason { out["reason"] = reason }
            if let id = answer.apnsId { out["apnsId"] = id }
            return ControlAPIResponse.bytes(JSONText.bytes(out), headers: [H2Header("content-type", "application/json")])
        }
    }

    /// A run the scenario runner reports, kept as the fields a run has (re-serialised, each bounded), not as sent.
    private func report(_ request: ControlRequest) throws -> HTTP1Response {
        let bytes = request.http.body
        guard bytes.count <= ScenarioRunLog.maxRecordBytes else {
            throw ControlAPIError.bodyTooLarge(limitBytes: ScenarioRunLog.maxRecordBytes)
        }
        let run: JSONNode
        switch JSONDocument.parse(bytes, budget: 8 << 20) {
        case .success(let d) where d.value.kind == .object: run = d.value
        case .success: throw ControlAPIError.invalidField("body", message: "a run is a JSON object")
        case .failure(.overBudget(let budget)): throw ControlAPIError.bodyTooComplex(budgetBytes: budget)
        case .failure(.invalid(let why)): throw ControlAPIError.malformedJSON("request body is not valid JSON: \(why)")
        }
        func text(_ node: JSONNode?, _ limit: Int = 1000) -> String? { node?.string.map { String($0.prefix(limit)) } }
        guard let name = text(run["name"]), let outcome = run["outcome"]?.string, ["passed", "failed", "skipped"].contains(outcome),
              let stepNodes = run["steps"], stepNodes.kind == .array
        else { throw ControlAPIError.invalidField("body", message: "a run has name, outcome (passed, failed, skipped) and steps") }
        let steps: [[String: Any]] = stepNodes.elements.prefix(1000).compactMap { s in
            guard let index = s["index"]?.integer, let kind = text(s["kind"], 40), let line = s["line"]?.integer,
                  let result = s["outcome"]?.string, ["passed", "failed"].contains(result) else { return nil }
            return ["index": index, "kind": kind, "line": line, "outcome": result, "seconds": s["seconds"]?.double ?? 0]
        }
        let failures = (run["failures"]?.elements ?? []).prefix(100).compactMap { text($0, 2000) }
        runs.append(JSONText.bytes(["name": name, "file": text(run["file"]) ?? "", "outcome": outcome,
                                    "seconds": run["seconds"]?.double ?? 0, "failures": failures, "steps": steps]))
        return ControlAPIResponse.noContent()
    }

    // MARK: EmulatorExtension

    package var observesPushes: Bool { false }
    package func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64) {}
    package func clockAdvanced(to now: Millis) {}
    package func reset() {}
    package func shutdown() { relay.shutdown() }

    package func started(at endpoints: EmulatorEndpoints) throws -> EmulatorEndpoints {
        relay.point(at: RelayTarget(dialing: endpoints))
        return endpoints
    }

    package var document: ControlAPIDocument.Fragment {
        typealias Op = ControlAPIDocument.Operation
        typealias Doc = ControlAPIDocument
        return ControlAPIDocument.Fragment(
            tags: [["name": "dashboard", "description": "The web dashboard at `/` and its compose form."]],
            operations: [
                Op(id: Operation.dashboardPage.rawValue, method: "GET", path: "/", tag: "dashboard", summary: "The dashboard",
                   description: "An HTML page (also at `/_emulator/dashboard`); served without the control token, which its calls carry.",
                   success: (200, "text/html", nil), open: true),
                Op(id: Operation.dashboardPageAlias.rawValue, method: "GET", path: "/_emulator/dashboard", tag: "dashboard",
                   summary: "The dashboard", success: (200, "text/html", nil), open: true),
                Op(id: Operation.dashboardScript.rawValue, method: "GET", path: "/_emulator/dashboard/app.js", tag: "dashboard",
                   summary: "The dashboard's script", success: (200, "text/javascript", nil), open: true),
                Op(id: Operation.dashboardStyle.rawValue, method: "GET", path: "/_emulator/dashboard/style.css", tag: "dashboard",
                   summary: "The dashboard's stylesheet", success: (200, "text/css", nil), open: true),
                Op(id: Operation.listScenarioRuns.rawValue, method: "GET", path: "/_emulator/scenario-runs", tag: "dashboard",
                   summary: "Scenario runs reported to this emulator",
                   description: "What `apns-emulator test --emulator URL` ran against it, oldest first (the last 200; kept"
                    + " across reset).",
                   success: (200, "`{\"runs\": [{name, file, outcome, seconds, failures, steps}]}`.", nil)),
                Op(id: Operation.reportScenarioRun.rawValue, method: "POST", path: "/_emulator/scenario-runs", tag: "dashboard",
                   summary: "Report a scenario run", description: "Sent by the scenario runner after each scenario.",
                   body: ("ScenarioRun", true), success: (204, "Kept.", nil)),
                Op(id: Operation.clearScenarioRuns.rawValue, method: "DELETE", path: "/_emulator/scenario-runs", tag: "dashboard",
                   summary: "Forget the reported scenario runs", description: "Reset keeps them; this empties the list.",
                   success: (204, "Emptied.", nil)),
                Op(id: Operation.dashboardSend.rawValue, method: "POST", path: "/_emulator/dashboard/send", tag: "dashboard",
                   summary: "Send a push to a virtual app",
                   description: "Through the APNs listener, signed with the sample key, to the app's token.",
                   body: ("DashboardSendRequest", true), success: (200, "`{status, reason?, apnsId?}`: APNs' answer.", nil),
                   errors: [404: "No such device or app.", 409: "The app has no token yet.",
                            503: "No answer from APNs (or the sample key cannot be read)."]),
            ],
            schemas: [
                "ScenarioRun": Doc.object("One scenario's run.", [
                    ("name", Doc.string("Scenario name.")), ("file", Doc.string("Its file.")),
                    ("outcome", Doc.string("passed, failed or skipped.")), ("seconds", ["type": "number"] as Doc.JSON),
                    ("failures", Doc.array(Doc.string("file:line:column: what"), "Failures.")),
                    ("steps", Doc.array(Doc.object("A step.", [
                        ("index", Doc.integer("1-based.")), ("kind", Doc.string("Step kind.")), ("line", Doc.integer("Line.")),
                        ("outcome", Doc.string("passed or failed.")), ("seconds", ["type": "number"] as Doc.JSON),
                    ]), "The steps run, in order.")),
                ], required: ["name", "outcome", "steps"]),
                "DashboardSendRequest": Doc.object("A push from the compose form.", [
                    ("deviceId", Doc.string("Device.")), ("bundleId", Doc.string("App.")),
                    ("payload", ["type": "object", "description": "The APNs payload."] as Doc.JSON),
                    ("pushType", Doc.string("apns-push-type (default alert).")), ("priority", Doc.integer("apns-priority.")),
                    ("collapseId", Doc.string("apns-collapse-id.")),
                    ("expiresInSeconds", Doc.integer("apns-expiration as seconds from now.")),
                ], required: ["deviceId", "bundleId", "payload"]),
            ])
    }
}
