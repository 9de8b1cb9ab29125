import APNsProtocol
import Foundation
import H2Transport

/// One scenario being executed: its emulator, senders, saved values and the result of the last step.
///
/// Steps run in order; after each, its expectations are checked. The first step with a failure ends the
/// scenario (later steps would only report its consequences), with every failing expectation of that step
/// reported.
final class ScenarioRun {
    let scenario: Scenario
    let target: EmulatorTarget
    var senders: [String: SenderSession] = [:]
    var variables: [String: String] = [:]
    /// Saved values that were JSON numbers or booleans (a call id, a flag captured from a result): a scalar that
    /// is only `${name}` takes the saved value's type, however it is quoted.
    var unquotedVariables: Set<String> = []
    var failures: [ScenarioFailure] = []
    /// Each step run so far, in order.
    var steps: [ScenarioStepRecord] = []
    /// The current step's own result (call record, push response, journal entry) as JSON.
    var result: [String: Any] = [:]
    /// The apns-id of the current push step (for its `fate` expectation).
    var pushId: String?
    /// Journal entries up to this id were seen before (by the scenario's start or an earlier wait).
    var journalCursor: Int64 = 0
    /// apns-ids the scenario's own push steps got back: a later wait-for-push waits for someone else's push.
    /// (Moving the cursor to the newest entry after each push instead cost a request per push, and skipped
    /// an external push journaled while the scenario's own was in flight.)
    var ownPushIds: Set<String> = []

    let responseTimeout: Duration

    init(scenario: Scenario, target: EmulatorTarget, responseTimeout: Duration = .seconds(30)) {
        self.scenario = scenario
        self.target = target
        self.responseTimeout = responseTimeout
    }

    var control: any ControlClient { target.control }
    var matcher: JSONMatcher { JSONMatcher(variables: variables) }

    func run() async {
        do {
            let newest = try await control.object("GET", "/_emulator/journal", query: [("limit", "1")])
            journalCursor = ((newest["entries"] as? [[String: Any]])?.last?["id"] as? NSNumber)?.int64Value ?? 0
            for file in scenario.files {
                _ = try await control.json("PUT", "/_emulator/files/\(file.name)", body: file.bytes)
            }
            variables["scenarioDir"] = URL(fileURLWithPath: scenario.file).absoluteURL.deletingLastPathComponent().path
            // `${now}` and `${nowSeconds±N}` in device specs too, not only in steps.
            if let now = (try await control.object("GET", "/_emulator/clock"))["now"] as? NSNumber {
                keep("now", now)
            }
            for device in scenario.devices {
                let body = Array(matcher.substitute(String(decoding: device.body, as: UTF8.self)).utf8)
                _ = try await control.json("POST", "/_emulator/devices", body: body, expecting: [201])
            }
            for (name, spec) in scenario.senders {
                let session = SenderSession(spec: spec, target: target, responseTimeout: responseTimeout)
                try await session.prepare()
                senders[name] = session
            }
        } catch {
            fail(at: scenario.mark, "setup", message: "\(error)")
            return
        }
        for (index, step) in scenario.steps.enumerated() {
            result = [:]
            pushId = nil
            let stepStarted = ContinuousClock.now
            let failuresBefore = failures.count
            defer {
                let elapsed = ContinuousClock.now - stepStarted
                steps.append(ScenarioStepRecord(
                    index: index + 1, kind: Self.name(of: step.kind), line: step.mark.line,
                    outcome: failures.count > failuresBefore ? "failed" : "passed",
                    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            }
            let label = "step \(index + 1) (\(Self.name(of: step.kind)))"
            do {
                // APNs answers a push before its device has it: every step starts, and every expectation is
                // checked, with the pushes accepted so far on their devices (`POST /_emulator/settle`).
                try await settle()
                if let clock = try? await control.object("GET", "/_emulator/clock"), let now = clock["now"] as? NSNumber {
                    keep("now", now)
                }
                try await execute(step)
                for (name, path) in step.capture {
                    guard let found = Self.value(at: path, in: result), matcher.scalarText(found) != nil else {
                        throw RunnerError("capture '\(name)': nothing at '\(path)' in the result \(matcher.describe(result))")
                    }
                    keep(name, found)
                }
            } catch {
                fail(at: step.mark, label, message: "\(error)")
                return
            }
            if !step.expectations.isEmpty {
                do {
                    try await settle()
                } catch {
                    fail(at: step.mark, label, message: "\(error)")
                    return
                }
            }
            for expectation in step.expectations {
                do {
                    try await check(expectation, in: step)
                } catch {
                    fail(at: expectation.mark, "expect.\(expectation.label)", message: "\(error)")
                }
            }
            if !failures.isEmpty { return }
        }
    }

    /// Waits until every push accepted so far has reached its device. An emulator without the endpoint (404)
    /// delivers inside the request; the server's wait stays under the control client's 30 s timeout.
    private func settle() async throws {
        _ = try await control.json("POST", "/_emulator/settle", body: Array(#"{"timeoutSeconds":25}"#.utf8),
                                   expecting: [200, 404])
    }

    /// Closes the senders' connections (blocking briefly).
    func close() {
        for (_, s) in senders { s.close() }
        senders.removeAll()
    }

    func fail(at mark: YAMLNode.Mark, _ what: String, expected: String? = nil, actual: String? = nil, message: String? = nil) {
        failures.append(ScenarioFailure(file: scenario.file, line: mark.line, column: mark.column, what: what,
                                        expected: expected, actual: actual, message: message))
    }

    /// The value at a dotted path (`headers.apns-channel-id`, `body.id`) in a step's result.
    static func value(at path: String, in object: [String: Any]) -> Any? {
        var current: Any? = object
        // A number indexes a list (`body.notifications.0.identifier`).
        for part in path.split(separator: ".") {
            if let list = current as? [Any], let i = Int(part) {
                current = list.indices.contains(i) ? list[i] : nil
            } else {
                current = (current as? [String: Any])?[String(part)]
            }
        }
        return current
    }

    static func name(of kind: Step.Kind) -> String {
        switch kind {
        case .call: return "call"
        case .action: return "action"
        case .device: return "device-action"
        case .install: return "install"
        case .uninstall: return "uninstall"
        case .push: return "push"
        case .waitForPush: return "wait-for-push"
        case .advance: return "advance"
        case .control: return "control"
        case .mint: return "mint"
        case .check: return "expect"
        }
    }

    // MARK: Steps

    func execute(_ step: Step) async throws {
        switch step.kind {
        case .call(let app, let body):
            let record = try await control.object("POST", app.path + "/calls", body: substituted(body).jsonBytes)
            var flat = record
            flat.removeValue(forKey: "result")
            for (k, v) in record["result"] as? [String: Any] ?? [:] { flat[k] = v }
            result = flat
            if let save = step.save {
                keep(save, flat["token"] ?? flat["callId"] ?? "")
            }
        case .action(let app, let name, let fields, let notification):
            var body: [String: Any] = (substituted(fields).jsonValue as? [String: Any]) ?? [:]
            body["action"] = name
            if let notification { body["notificationId"] = try await resolveNotification(notification, app) }
            _ = try await control.json("POST", app.path + "/actions", body: try jsonData(body))
        case .device(let id, let action):
            _ = try await control.json("POST", "/_emulator/devices/\(id)/actions", body: try jsonData(["action": action]))
        case .install(let device, let app):
            _ = try await control.json("POST", "/_emulator/devices/\(device)/apps", body: substituted(app).jsonBytes,
                                       expecting: [201])
        case .uninstall(let app):
            _ = try await control.json("DELETE", app.path, expecting: [204])
        case .push(let spec):
            try await push(spec, save: step.save)
        case .waitForPush(let spec):
            try await wait(spec, save: step.save)
        case .advance(let ms):
            _ = try await control.json("POST", "/_emulator/clock/advance", body: try jsonData(["ms": ms]))
        case .control(let method, let path, let body, let mustSucceed):
            let (status, bytes) = try await control.request(method, matcher.substitute(path), query: [],
                                                            body: body.map { substituted($0).jsonBytes })
            if mustSucceed && !(200..<300).contains(status) {
                let message = ((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any])?["error"] as? String
                throw RunnerError("the emulator refused it (\(status)): \(message ?? "")")
            }
            result = ["status": status,
                      "body": (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
                        ?? String(decoding: bytes, as: UTF8.self)]
            // A control answer's id; FCM's message name (v1) or first message id (legacy) for the front-door steps.
            let body = result["body"] as? [String: Any]
            let legacyId = (body?["results"] as? [[String: Any]])?.first?["message_id"]
            if let save = step.save, let id = body?["id"] ?? body?["name"] ?? legacyId { keep(save, id) }
        case .mint(let name):
            guard let sender = senders[name], let save = step.save else { throw RunnerError("no sender '\(name)'") }
            keep(save, try await sender.mintToken())
        case .check:
            break
        }
    }

    func jsonData(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// Saves `value` as `${name}` (its text), remembering whether it was a number or a boolean (JSON's, both
    /// `NSNumber`s) rather than a string.
    func keep(_ name: String, _ value: Any) {
        variables[name] = matcher.scalarText(value) ?? "\(value)"
        if value is NSNumber { unquotedVariables.insert(name) } else { unquotedVariables.remove(name) }
    }

    /// `${name}` replaced in every scalar of `node`.
    func substituted(_ node: YAMLNode) -> YAMLNode {
        switch node {
        case .scalar(let text, let quoted, let mark):
            // A scalar that is one saved value takes that value's type, quoted or not.
            if let name = VariableReferences.wholeReference(text), let value = variables[name] {
                return .scalar(value, quoted: !unquotedVariables.contains(name), mark)
            }
            return .scalar(matcher.substitute(text), quoted: quoted, mark)
        case .sequence(let items, let mark): return .sequence(items.map(substituted), mark)
        case .mapping(let pairs, let mark): return .mapping(pairs.map { ($0.key, substituted($0.value)) }, mark)
        }
    }

    /// `last` (the newest notification on display), or an identifier (`${saved}` allowed).
    func resolveNotification(_ reference: String, _ app: AppRef) async throws -> String {
        guard reference == "last" else { return matcher.substitute(reference) }
        let centre = try await control.object("GET", app.path + "/notifications")
        guard let id = (centre["notifications"] as? [[String: Any]])?.first?["identifier"] as? String else {
            throw RunnerError("'notification: last' but the notification centre of \(app.bundleId) is empty")
        }
        return id
    }

    /// The token an app holds now.
    func token(of app: AppRef) async throws -> String {
        let state = try await control.object("GET", app.path)
        guard let token = state["token"] as? String else {
            throw RunnerError("\(app.bundleId) on \(app.device) has no token yet (call GetToken first)")
        }
        return token
    }

    func token(for destination: PushSpec.Destination) async throws -> String {
        switch destination {
        case .app(let app): return try await token(of: app)
        case .token(let text): return matcher.substitute(text)
        }
    }

    func push(_ spec: PushSpec, save: String?) async throws {
        let token = try await token(for: spec.destination)
        guard let sender = senders[spec.sender] else { throw RunnerError("no sender '\(spec.sender)'") }
        let host = spec.host ?? (spec.environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com")
        let headers = spec.headers.compactMap { h in h.value.map { H2Header(h.name, matcher.substitute($0)) } }
        let payload = Array(matcher.substitute(String(decoding: spec.payload, as: UTF8.self)).utf8)
        let response = try await sender.send(
            method: spec.method, path: spec.path.map(matcher.substitute) ?? "/3/device/\(token)", headers: headers,
            body: payload, environment: spec.environment, host: host, newConnection: spec.newConnection)
        var r: [String: Any] = ["status": response.status]
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        if let reason = body?["reason"] { r["reason"] = reason }
        if let timestamp = body?["timestamp"] { r["timestamp"] = timestamp }
        if let id = response["apns-id"] { r["apnsId"] = id }
        if let id = response["apns-unique-id"] { r["apnsUniqueId"] = id }
        var headerMap: [String: Any] = [:]
        for h in response.headers { headerMap[h.name] = h.value }
        r["headers"] = headerMap
        r["token"] = token
        result = r
        pushId = response["apns-id"]
        if let save, let id = pushId { keep(save, id) }
        if let id = pushId { ownPushIds.insert(id) }
    }

    /// Polls the journal until an external push matching `spec` is recorded, or the timeout passes (real time).
    func wait(_ spec: WaitSpec, save: String?) async throws {
        var token: String?
        if let destination = spec.destination { token = try await self.token(for: destination) }
        var query: [(name: String, value: String)] = [("after", "\(journalCursor)")]
        if let token { query.append(("token", token)) }
        if let topic = spec.topic { query.append(("topic", matcher.substitute(topic))) }
        if let status = spec.status { query.append(("status", "\(status)")) }
        let deadline = Date().addingTimeInterval(Double(spec.timeoutMillis) / 1000)
        while Date() < deadline {
            let page = try await control.object("GET", "/_emulator/journal", query: query)
            for entry in page["entries"] as? [[String: Any]] ?? [] {
                if let id = entry["apnsId"] as? String, ownPushIds.contains(id) { continue }
                if let needle = spec.payloadContains.map(matcher.substitute),
                   !((entry["payload"] as? String)?.contains(needle) ?? false) { continue }
                result = entry
                pushId = entry["apnsId"] as? String
                journalCursor = (entry["id"] as? NSNumber)?.int64Value ?? journalCursor
                if let save, let id = pushId { keep(save, id) }
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RunnerError("no matching push arrived within \(Double(spec.timeoutMillis) / 1000) s")
    }
}
