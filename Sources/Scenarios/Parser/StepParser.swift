import APNsEmulator
import APNsProtocol
import EmulatorControl
import VirtualDevices

/// Reads one step of a scenario: exactly one kind key (`call`, `action`, `push`…), its arguments, the
/// optional `device`/`app` target, `expect` and `save`.
struct StepParser {
    let file: String
    let devices: [DeviceSpec]
    let senders: [String: SenderSpec]
    let clock: Scenario.ClockMode

    static let kinds = ["call", "notify", "action", "device-action", "install", "uninstall", "push", "wait-for-push", "advance",
                        "control", "mint", "fault", "fcm", "fcm-legacy", "onesignal", "expect"]
    /// The sample Firebase project the `fcm` steps send to unless they name a `project`.
    static let sampleFCMProject = "apns-emulator-demo"
    /// Keys of `expect` that read the emulator's state rather than the step's own result.
    static let stateKeys = ["app", "events", "calls", "forwards", "coldStart", "coldStartPeek", "badge", "notifications",
                            "fate", "fates", "deviceToken", "sdk", "sdkRecords", "sdkDecisions"]
    static let callNames = DevicesControlAPI.calls.map(\.name)
    /// What each call argument must be, for the parse error.
    static let argumentKinds: [String: String] = [
        "options": "a list of UNAuthorizationOption numbers 0–7", "count": "an integer",
        "callId": "a number or a saved ${name}",
        "deviceToken": "the token's bytes: a string of hex digits or a list of numbers 0–255",
        "errorDescription": "a string", "notification": "a mapping of ApnsNotification fields",
        "actionIdentifier": "a string", "userInfoJson": "a string",
    ]
    /// Arguments that are strings whatever the quoting (`deviceToken: 0123`, `userInfoJson: {}` quoted or not).
    static let stringArguments: Set<String> = ["errorDescription", "actionIdentifier", "userInfoJson"]
    /// Which fields each user action takes (`notification` is the notification's identifier).
    static let actionFields: [String: (required: [String], optional: [String])] = [
        "launch": ([], []), "foreground": ([], []), "background": ([], []), "forceQuit": ([], []), "terminate": ([], []),
        "tap": (["notification"], []), "action": (["notification", "actionId"], ["text"]),
        "dismiss": (["notification"], []), "setNotificationsEnabled": (["enabled"], []), "setCollectionEnabled": (["enabled"], []), "recordBannerClick": ([], ["deliveryId"]), "answerPrompt": (["allow"], []),
        "reattachDelegate": ([], []), "postLocalNotification": (["title"], ["body", "category", "threadId"]),
        "setNotificationCategories": (["categories"], ["preservingSDK"]), "expand": (["notification"], []), "collapse": ([], []),
    ]

    func error(_ node: YAMLNode, _ message: String) -> ScenarioParseError {
        ScenarioParseError(file: file, mark: node.mark, message)
    }

    func step(_ node: YAMLNode) throws(ScenarioParseError) -> Step {
        var r = try NodeReader(node, file: file, context: "a step")
        let present = r.keys.filter { Self.kinds.contains($0) }
        guard let kindName = present.first(where: { $0 != "expect" }) ?? present.first else {
            let guess = r.keys.compactMap { key in
                Self.kinds.first { NodeReader.distance($0, key) <= 2 }.map { "'\(key)' — did you mean '\($0)'?" }
            }.first
            throw error(node, "a step needs one of: " + Self.kinds.joined(separator: ", ")
                        + " (got: " + r.keys.joined(separator: ", ") + ")" + (guess.map { "; " + $0 } ?? ""))
        }
        if present.filter({ $0 != "expect" }).count > 1 {
            throw error(node, "a step does one thing: found " + present.filter { $0 != "expect" }.joined(separator: " and "))
        }
        let deviceName = try r.string("device")
        let appName = try r.string("app")
        let save = try r.string("save")
        _ = try r.string("note")
        var capture: [(name: String, path: String)] = []
        if let c = r.value("capture") {
            guard case .mapping(let pairs, _) = c else { throw error(c, "'capture' must map names to result paths") }
            for (k, v) in pairs {
                guard let name = k.scalarText, let path = v.scalarText else {
                    throw error(v, "'capture' maps a name to a path such as headers.apns-channel-id")
                }
                capture.append((name, path))
            }
        }
        let expectNode = r.value("expect")
        let targets = Targets(parser: self, node: node, device: deviceName, app: appName)

        let kind: Step.Kind
        var hasResult = true
        switch kindName {
        case "call":
            kind = try call(&r, node, targets)
        case "notify":
            kind = try call(&r, node, targets, notify: true)
        case "action":
            kind = try action(&r, node, targets)
            hasResult = false
        case "device-action":
            let what = try r.string("device-action", required: true) ?? ""
            guard DevicesControlAPI.deviceActionNames.contains(what) else {
                throw error(node["device-action"]!, "'device-action' must be one of " + DevicesControlAPI.deviceActionNames.joined(separator: ", ")
                            + ", got '\(what)'")
            }
            kind = .device(try targets.device(), action: what)
            hasResult = false
        case "install":
            let app = try r.required("install", "the app to install, as in a device's apps")
            let device = try targets.device()
            try validateApp(app)
            kind = .install(device: device, app: app)
            hasResult = false
        case "uninstall":
            let bundle = try r.string("uninstall", required: true) ?? ""
            kind = .uninstall(AppRef(device: try targets.device(), bundleId: bundle))
            hasResult = false
        case "push":
            kind = .push(try push(r.required("push", "the push"), targets))
        case "wait-for-push":
            kind = .waitForPush(try wait(r.required("wait-for-push", "what the external push must match"), targets))
        case "advance":
            guard clock == .manual else {
                throw error(node, "'advance' needs 'clock: manual' (this scenario runs on real time)")
            }
            // `duration` refuses negative values itself; nil only when the key is absent, which it is not here.
            guard let ms = try r.duration("advance") else { throw error(node, "'advance' needs a duration") }
            kind = .advance(millis: ms)
            hasResult = false
        case "control":
            kind = try control(r.required("control", "method, path and body"))
        case "fcm", "fcm-legacy":
            // The provider's own body, sent through the front door with the project's credentials.
            let body = try r.required(kindName, kindName == "fcm" ? "the v1 send body ({message: …})" : "the legacy send body")
            guard case .mapping = body else { throw error(body, "'\(kindName)' takes the provider's JSON body as a mapping") }
            let project = try r.string("project") ?? Self.sampleFCMProject
            kind = .control(method: "POST", path: "/_emulator/front-doors/fcm/\(kindName == "fcm" ? "v1" : "legacy")/\(project)",
                            body: body)
        case "onesignal":
            let body = try r.required("onesignal", "the create-notification body")
            guard case .mapping = body else { throw error(body, "'onesignal' takes OneSignal's JSON body as a mapping") }
            kind = .control(method: "POST", path: "/_emulator/front-doors/onesignal", body: body)
        case "fault":
            kind = try fault(r.required("fault", "a fault to inject, or clear"))
        case "mint":
            let sender = try r.string("mint", required: true) ?? ""
            guard let spec = senders[sender] else {
                throw error(node["mint"]!, "unknown sender '\(sender)' (declared: " + senders.keys.sorted().joined(separator: ", ") + ")")
            }
            switch spec.auth {
            case .bundledKey, .generatedKey: break
            default: throw error(node["mint"]!, "sender '\(sender)' signs no provider tokens (it is not a token sender with a key)")
            }
            guard save != nil else { throw error(node, "'mint' needs 'save: name' to keep the token") }
            kind = .mint(sender: sender)
            hasResult = false
        default:
            kind = .check
            hasResult = false
        }
        try r.finish()
        let expectations = try expectNode.map { (e) throws(ScenarioParseError) in
            try expect(e, hasResult: hasResult, targets: targets, kindName: kindName)
        } ?? []
        if kindName == "expect" && expectations.isEmpty {
            throw error(node, "'expect' needs at least one expectation")
        }
        let savers = ["call", "push", "wait-for-push", "control", "fcm", "fcm-legacy", "onesignal", "fault", "mint"]
        if save != nil && !savers.contains(kindName) {
            throw error(node["save"]!, "'save' does not apply to \(kindName == "expect" ? "an expect step" : kindName): only "
                        + savers.dropLast().joined(separator: ", ") + " and \(savers.last!) steps have a value to keep")
        }
        if !capture.isEmpty && !hasResult {
            throw error(node["capture"]!, "'capture' needs a step with a result (call, push, wait-for-push, control)")
        }
        return Step(kind: kind, mark: node.mark, expectations: expectations, save: save, capture: capture)
    }

    // MARK: Calls and actions

    /// A `call` step, or a `notify` step (`notify: DidRegisterForRemoteNotifications`: the forwarding method
    /// of that name, `Notify` and `Async` optional).
    private func call(_ r: inout NodeReader, _ node: YAMLNode, _ targets: Targets, notify: Bool = false)
        throws(ScenarioParseError) -> Step.Kind
    {
        let key = notify ? "notify" : "call"
        var name = try r.string(key, required: true) ?? ""
        if notify {
            if name.hasSuffix("Async") { name.removeLast("Async".count) }
            if !name.hasPrefix("Notify") { name = "Notify" + name }
        }
        guard let arguments = DevicesControlAPI.callArguments[name] else {
            let names = notify ? Self.callNames.filter { $0.hasPrefix("Notify") } : Self.callNames
            throw error(node[key]!, "unknown plugin \(notify ? "forwarding method" : "call") '\(name)'; expected one of: "
                        + names.joined(separator: ", "))
        }
        var pairs: [(key: YAMLNode, value: YAMLNode)] = [(.scalar("call", quoted: false, node.mark), .scalar(name, quoted: true, node.mark))]
        for argument in Self.argumentKinds.keys.sorted() {
            let given = node[argument] != nil
            let value = r.value(argument)
            guard arguments.contains(argument) else {
                if given { throw error(node[argument]!, "'\(argument)' does not apply to \(name)") }
                continue
            }
            guard given else {
                let null = argument == "callId" ? "" : "; null makes the plugin throw"
                throw error(node, "\(name) needs '\(argument)' (\(Self.argumentKinds[argument]!)\(null))")
            }
            let v = value ?? .scalar("null", quoted: false, node.mark)
            try check(argument, v, of: name)
            pairs.append((.scalar(argument, quoted: false, node.mark), Self.typed(argument, v)))
        }
        if let cancelled = try r.bool("cancelled") {
            pairs.append((.scalar("cancelled", quoted: false, node.mark), .scalar(cancelled ? "true" : "false", quoted: false, node.mark)))
        }
        return .call(try targets.app(), body: .mapping(pairs, node.mark))
    }

    /// The shape of one call argument (its values are the control API's to check).
    private func check(_ argument: String, _ v: YAMLNode, of name: String) throws(ScenarioParseError) {
        if case .scalar(let text, false, _) = v, YAMLNode.isNull(text) { return }
        switch argument {
        case "options":
            guard case .sequence(let items, _) = v, items.allSatisfy({ Int($0.scalarText ?? "").map { (0...7).contains($0) } ?? false }) else {
                throw error(v, "'options' must be a list of numbers from 0 (Unspecified) to 7 (Provisional)")
            }
        case "count":
            if Int(v.scalarText ?? "") == nil, !(v.scalarText ?? "").contains("${") {
                throw error(v, "'count' must be an integer, got \(v.kindDescription)")
            }
        case "notification":
            guard case .mapping = v else { throw error(v, "'notification' must be \(Self.argumentKinds[argument]!) or null") }
        case "deviceToken":
            switch v {
            case .sequence, .scalar: break
            default: throw error(v, "'deviceToken' must be \(Self.argumentKinds[argument]!)")
            }
        default:
            guard case .scalar = v else { throw error(v, "'\(argument)' must be \(Self.argumentKinds[argument]!), got \(v.kindDescription)") }
        }
    }

    /// String arguments stay strings whatever the quoting: `errorDescription: 404` is the text "404".
    static func typed(_ argument: String, _ v: YAMLNode) -> YAMLNode {
        guard stringArguments.contains(argument) || argument == "deviceToken",
              case .scalar(let text, false, let mark) = v, !YAMLNode.isNull(text) else { return v }
        return .scalar(text, quoted: true, mark)
    }

    private func action(_ r: inout NodeReader, _ node: YAMLNode, _ targets: Targets) throws(ScenarioParseError) -> Step.Kind {
        let name = try r.string("action", required: true) ?? ""
        guard let fields = Self.actionFields[name] else {
            throw error(node["action"]!, "unknown user action '\(name)'; expected one of: "
                        + DevicesControlAPI.appActionNames.joined(separator: ", "))
        }
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        var notification: String?
        for key in ["notification", "actionId", "text", "enabled", "allow", "title", "body", "category", "threadId",
                    "categories", "deliveryId", "preservingSDK"] {
            guard let value = r.value(key) else { continue }
            guard fields.required.contains(key) || fields.optional.contains(key) else {
                throw error(node[key]!, "'\(key)' does not apply to action '\(name)'")
            }
            if key == "notification" { notification = value.scalarText } else { pairs.append((.scalar(key, quoted: false, value.mark), value)) }
        }
        for key in fields.required where node[key] == nil {
            throw error(node, "action '\(name)' needs '\(key)'" + (key == "notification" ? " (an apns-id, ${saved}, or last)" : ""))
        }
        return .action(try targets.app(), name: name, fields: .mapping(pairs, node.mark), notification: notification)
    }

    private func validateApp(_ app: YAMLNode) throws(ScenarioParseError) {
        do {
            let body = try JSONBodyReader.parse(app.jsonBytes)
            let fields = DeviceRequestReaders.readApp(body)
            try body.finish()
            _ = try DeviceRequestReaders.app(fields)
        } catch {
            throw self.error(error.field.map { app.node(at: $0) } ?? app, "app: \(error.message)")
        }
    }

    // MARK: Pushes

    private func destination(_ r: inout NodeReader, _ node: YAMLNode, _ targets: Targets)
        throws(ScenarioParseError) -> (PushSpec.Destination, APNsEnvironment, String?)
    {
        if let token = try r.string("token") {
            return (.token(token), .production, devices.count == 1 && devices[0].bundleIds.count == 1 ? devices[0].bundleIds[0] : nil)
        }
        var device = targets.deviceName, app = targets.appName
        if let to = r.value("to") {
            var t = try NodeReader(to, file: file, context: "'to'")
            device = try t.string("device") ?? device
            app = try t.string("app") ?? app
            try t.finish()
        }
        let ref = try Targets(parser: self, node: node, device: device, app: app).app()
        let environment = devices.first { $0.id == ref.device }?.environments[ref.bundleId] ?? .production
        return (.app(ref), environment, ref.bundleId)
    }

    func push(_ node: YAMLNode, _ targets: Targets) throws(ScenarioParseError) -> PushSpec {
        var r = try NodeReader(node, file: file, context: "push")
        let (destination, defaultEnvironment, defaultTopic) = try destination(&r, node, targets)
        let senderName = try r.string("sender") ?? "default"
        guard senders[senderName] != nil else {
            throw error(node["sender"]!, "unknown sender '\(senderName)' (declared: " + senders.keys.sorted().joined(separator: ", ") + ")")
        }
        var environment = defaultEnvironment
        if let text = try r.string("environment") {
            guard let e = APNsEnvironment(rawValue: text) else {
                throw error(node["environment"]!, "'environment' must be production or sandbox, got '\(text)'")
            }
            environment = e
        }
        var headers: [(name: String, value: String?)] = []
        if let h = node["headers"] {
            _ = r.value("headers")
            // A mapping, or a list of one-entry mappings when a header repeats (DuplicateHeaders on purpose).
            var pairs: [(key: YAMLNode, value: YAMLNode)] = []
            switch h {
            case .mapping(let p, _): pairs = p
            case .sequence(let items, _):
                for item in items {
                    guard case .mapping(let p, _) = item, p.count == 1 else {
                        throw error(item, "each item of a 'headers' list is one 'name: value'")
                    }
                    pairs += p
                }
            default: throw error(h, "'headers' must map header names to values (or list them to repeat one)")
            }
            for (key, value) in pairs {
                guard case .scalar(let text, let quoted, _) = value else {
                    throw error(value, "header '\(key.scalarText ?? "")' must be a single value")
                }
                headers.append((key.scalarText ?? "", !quoted && YAMLNode.isNull(text) ? nil : text))
            }
        } else {
            _ = r.value("headers")
        }
        if !headers.contains(where: { $0.name.lowercased() == "apns-topic" }), let defaultTopic {
            headers.insert(("apns-topic", defaultTopic), at: 0)
        }
        let payloadNode = r.value("payload")
        let payload: [UInt8]
        switch payloadNode {
        case nil: payload = Array(#"{"aps":{"alert":"Hello from a scenario"}}"#.utf8)
        case .scalar(let text, _, _)?: payload = Array(text.utf8)
        case let n?: payload = n.jsonBytes
        }
        let method = try r.string("method") ?? "POST"
        let path = try r.string("path")
        let host = try r.string("host")
        let connection = try r.string("connection") ?? "reuse"
        guard connection == "reuse" || connection == "new" else {
            throw error(node["connection"]!, "'connection' must be reuse or new, got '\(connection)'")
        }
        try r.finish()
        return PushSpec(sender: senderName, destination: destination, environment: environment, headers: headers,
                        payload: payload, method: method, path: path, host: host, newConnection: connection == "new")
    }

    private func wait(_ node: YAMLNode, _ targets: Targets) throws(ScenarioParseError) -> WaitSpec {
        var r = try NodeReader(node, file: file, context: "wait-for-push")
        var destination: PushSpec.Destination?
        if node["token"] != nil || node["to"] != nil || targets.deviceName != nil {
            destination = try self.destination(&r, node, targets).0
        } else {
            _ = try r.string("token")
            _ = r.value("to")
        }
        let topic = try r.string("topic")
        let contains = try r.string("payloadContains")
        let status = try r.int("status", in: 100...599)
        let timeout = min(try r.duration("timeout") ?? 10_000, 3_600_000)
        try r.finish()
        return WaitSpec(destination: destination, topic: topic, payloadContains: contains, status: status, timeoutMillis: timeout)
    }

    private func control(_ node: YAMLNode) throws(ScenarioParseError) -> Step.Kind {
        var r = try NodeReader(node, file: file, context: "control")
        let method = try r.string("method") ?? "GET"
        let path = try r.string("path", required: true) ?? ""
        let body = r.value("body")
        try r.finish()
        guard ["GET", "POST", "PUT", "DELETE"].contains(method) else {
            throw error(node["method"]!, "'method' must be GET, POST, PUT or DELETE")
        }
        guard path.hasPrefix("/_emulator/") else {
            throw error(node["path"]!, "'path' must be a control path under /_emulator/")
        }
        return .control(method: method, path: path, body: body)
    }

    /// `fault: {reason|delay|action, token, topic, count, for}` or `fault: clear`, as control requests.
    private func fault(_ node: YAMLNode) throws(ScenarioParseError) -> Step.Kind {
        if node.scalarText == "clear" {
            return .control(method: "DELETE", path: "/_emulator/faults", body: nil, mustSucceed: true)
        }
        var r = try NodeReader(node, file: file, context: "fault")
        let reason = try r.string("reason")
        let delay = try r.duration("delay")
        let action = try r.string("action")
        let token = try r.string("token")
        let topic = try r.string("topic")
        let count = try r.int("count", in: 1...1_000_000)
        let duration = try r.duration("for")
        try r.finish()
        let m = node.mark
        func s(_ text: String) -> YAMLNode { .scalar(text, quoted: true, m) }
        func n(_ value: Int64) -> YAMLNode { .scalar(String(value), quoted: false, m) }
        let chosen = [reason != nil, delay != nil, action != nil].filter { $0 }.count
        guard chosen == 1 else {
            throw error(node, "a fault needs exactly one of 'reason' (an APNs reason), 'delay' (a duration) or "
                        + "'action' (reset-stream, goaway, shutdown); or 'fault: clear'")
        }
        var actionPairs: [(key: YAMLNode, value: YAMLNode)]
        if let reason {
            guard APNsReason(rawValue: reason) != nil else {
                throw error(node["reason"]!, "'\(reason)' is not an APNs reason (e.g. BadDeviceToken, ServiceUnavailable)")
            }
            actionPairs = [(s("type"), s("reason")), (s("reason"), s(reason))]
        } else if let delay {
            actionPairs = [(s("type"), s("delay")), (s("delayMs"), n(delay))]
        } else {
            guard let action, ["reset-stream", "goaway", "shutdown"].contains(action) else {
                throw error(node["action"]!, "'action' must be reset-stream, goaway or shutdown")
            }
            actionPairs = [(s("type"), s(action))]
        }
        var pairs: [(key: YAMLNode, value: YAMLNode)] = [(s("action"), .mapping(actionPairs, m))]
        if let token { pairs.append((s("token"), s(token))) }
        if let topic { pairs.append((s("topic"), s(topic))) }
        if let count { pairs.append((s("count"), n(Int64(count)))) }
        if let duration { pairs.append((s("durationMs"), n(duration))) }
        return .control(method: "POST", path: "/_emulator/faults", body: .mapping(pairs, m), mustSucceed: true)
    }

    // MARK: Expectations

    private func expect(_ node: YAMLNode, hasResult: Bool, targets: Targets, kindName: String)
        throws(ScenarioParseError) -> [Expectation]
    {
        guard case .mapping(let pairs, _) = node else {
            throw error(node, "'expect' must be a mapping of what to check, got \(node.kindDescription)")
        }
        var out: [Expectation] = []
        for (key, value) in pairs {
            let name = key.scalarText ?? ""
            let kind: Expectation.Kind
            switch name {
            case "app": kind = .app(try targets.app())
            case "sdk": kind = .sdk(try targets.app())
            case "events", "calls", "forwards", "sdkRecords", "sdkDecisions":
                kind = .events(try targets.app(), mode: try eventsMode(value, name), log: Expectation.AppLogKind(rawValue: name)!)
            case "coldStart": kind = .coldStart(try targets.app())
            case "coldStartPeek": kind = .coldStartPeek(try targets.app())
            case "fates":
                // Several pushes' fates in one expect: each item is a `fate` mapping with its `push`.
                guard case .sequence(let items, _) = value, !items.isEmpty else {
                    throw error(value, "'fates' must be a list of {push: ${saved}, is | steps | reason | code | codes | device}")
                }
                for (i, item) in items.enumerated() {
                    guard case .mapping(let fp, _) = item, let push = item["push"]?.scalarText else {
                        throw error(item, "each of 'fates' needs 'push: ${saved-apns-id}'")
                    }
                    for (k, _) in fp where !["push", "is", "steps", "reason", "code", "codes", "device"].contains(k.scalarText ?? "") {
                        throw error(k, "unknown fate check '\(k.scalarText ?? "")'; expected one of: push, is, steps, reason, code, codes, device")
                    }
                    out.append(Expectation(kind: .fate(push: push), expected: item, mark: item.mark, label: "fates[\(i)]"))
                }
                continue
            case "badge":
                guard Int(value.scalarText ?? "") != nil else { throw error(value, "'badge' must be an integer") }
                kind = .badge(try targets.app())
            case "notifications": kind = .notifications(try targets.app())
            case "deviceToken": kind = .token(try targets.app())
            case "fate":
                if case .mapping(let fp, _) = value {
                    for (k, _) in fp where !["push", "is", "steps", "reason", "code", "codes", "device"].contains(k.scalarText ?? "") {
                        throw error(k, "unknown fate check '\(k.scalarText ?? "")'; expected one of: push, is, steps, reason, code, codes, device")
                    }
                }
                if kindName == "push" || (value["push"] != nil) {
                    kind = .fate(push: value["push"]?.scalarText ?? "")
                } else {
                    throw error(value, "'fate' outside a push step needs 'push: ${saved-apns-id}'")
                }
            default:
                guard hasResult else {
                    throw error(key, "unknown expectation '\(name)' for this \(kindName) step; expected one of: "
                                + Self.stateKeys.joined(separator: ", "))
                }
                kind = .result
            }
            out.append(Expectation(kind: kind, expected: value, mark: value.mark, label: name))
        }
        return out
    }

    private func eventsMode(_ value: YAMLNode, _ name: String) throws(ScenarioParseError) -> Expectation.EventsMode {
        switch value {
        case .sequence: return .exactly
        case .mapping(let pairs, _):
            guard pairs.count == 1, let key = pairs[0].key.scalarText, let mode = Expectation.EventsMode(rawValue: key),
                  case .sequence = pairs[0].value else {
                throw error(value, "'\(name)' must be a list (exactly these, in order) or one of "
                            + Expectation.EventsMode.allCases.map { "\($0.rawValue): [...]" }.joined(separator: ", "))
            }
            return mode
        default:
            throw error(value, "'\(name)' must be a list of \(name), got \(value.kindDescription)")
        }
    }
}

/// The `device`/`app` a step names, with the scenario's defaults (the only device, its only app).
struct Targets {
    let parser: StepParser
    let node: YAMLNode
    let deviceName: String?
    let appName: String?

    init(parser: StepParser, node: YAMLNode, device: String?, app: String?) {
        self.parser = parser
        self.node = node
        self.deviceName = device
        self.appName = app
    }

    func device() throws(ScenarioParseError) -> String {
        if let deviceName {
            guard parser.devices.contains(where: { $0.id == deviceName }) else {
                throw parser.error(node["device"] ?? node, "no device '\(deviceName)' in this scenario (devices: "
                                   + parser.devices.map(\.id).joined(separator: ", ") + ")")
            }
            return deviceName
        }
        guard parser.devices.count == 1 else {
            throw parser.error(node, parser.devices.isEmpty ? "this step needs a device, and the scenario declares none"
                               : "this step needs 'device:' (the scenario has several devices)")
        }
        return parser.devices[0].id
    }

    func app() throws(ScenarioParseError) -> AppRef {
        let device = try device()
        if let appName { return AppRef(device: device, bundleId: appName) }
        let apps = parser.devices.first { $0.id == device }?.bundleIds ?? []
        guard apps.count == 1 else {
            throw parser.error(node, apps.isEmpty ? "this step needs an app, and device '\(device)' has none installed at start (name it with 'app:')"
                               : "this step needs 'app:' (device '\(device)' has several apps)")
        }
        return AppRef(device: device, bundleId: apps[0])
    }
}
