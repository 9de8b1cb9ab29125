import Foundation

/// Checking a step's expectations against what the emulator reports.
extension ScenarioRun {
    func check(_ e: Expectation, in step: Step) async throws {
        let label = "expect.\(e.label)"
        switch e.kind {
        case .result:
            compare(e.expected, result[e.label], label: label)
        case .app(let app):
            compare(e.expected, try await control.object("GET", app.path), label: label)
        case .sdk(let app):
            compare(e.expected, try await control.object("GET", app.path + "/sdk"), label: label)
        case .badge(let app):
            compare(e.expected, try await control.object("GET", app.path + "/notifications")["badge"], label: label)
        case .notifications(let app):
            let centre = try await control.object("GET", app.path + "/notifications")
            guard case .mapping(var pairs, let mark) = e.expected else {
                compare(e.expected, centre, label: label)
                return
            }
            if let i = pairs.firstIndex(where: { $0.key.scalarText == "count" }) {
                let count = pairs.remove(at: i).value
                compare(count, (centre["notifications"] as? [Any])?.count ?? 0, label: label + ".count")
            }
            if !pairs.isEmpty { compare(.mapping(pairs, mark), centre, label: label) }
        case .events(let app, let mode, let log):
            let entries = try await control.object("GET", app.path + "/" + log.path)[log.key] as? [[String: Any]] ?? []
            checkEvents(e, mode: mode, log: log, entries, label: label)
        case .coldStart, .coldStartPeek:
            let n: Any?
            if case .coldStart(let app) = e.kind {
                let record = try await control.object("POST", app.path + "/calls",
                                                       body: Array(#"{"call":"GetColdStartNotification"}"#.utf8))
                n = (record["result"] as? [String: Any])?["notification"]
            } else if case .coldStartPeek(let app) = e.kind {
                n = try await control.object("GET", app.path)["coldStartPeek"]
            } else {
                n = nil
            }
            if e.expected.scalarText == "empty" {
                let json = (n as? [String: Any])?["userInfoJson"] as? String
                if json != "" { fail(at: e.mark, label, expected: "the empty notification", actual: matcher.describe(n)) }
            } else {
                compare(e.expected, n, label: label)
            }
        case .fate(let reference):
            try await checkFate(e, reference: reference, label: label)
        case .token(let app):
            let token = try await self.token(of: app)
            let (status, bytes) = try await control.request("GET", "/_emulator/tokens/\(token)", query: [], body: nil)
            var record = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
            record["registered"] = status == 200 && record["unregisteredAt"] == nil && record["expiredAt"] == nil
            record["length"] = token.count
            compare(e.expected, record, label: label)
        }
    }

    func compare(_ expected: YAMLNode, _ actual: Any?, label: String) {
        if let m = matcher.match(expected, actual) {
            fail(at: m.mark, m.path.isEmpty ? label : "\(label).\(m.path)", expected: m.expected, actual: m.actual)
        }
    }

    private func checkEvents(_ e: Expectation, mode: Expectation.EventsMode, log: Expectation.AppLogKind,
                             _ events: [[String: Any]], label: String) {
        let noun = log.noun
        let list: [YAMLNode]
        switch e.expected {
        case .sequence(let items, _): list = items
        case .mapping(let pairs, _): if case .sequence(let items, _) = pairs[0].value { list = items } else { list = [] }
        default: list = []
        }
        /// A bare string is the event type (the call's method, the forward's callback).
        func pattern(_ n: YAMLNode) -> YAMLNode {
            if case .scalar = n { return .mapping([(.scalar(log.nameField, quoted: false, n.mark), n)], n.mark) }
            return n
        }
        let types = events.compactMap { $0[log.nameField] as? String }.joined(separator: ", ")
        let actualSummary = "[\(types)]"
        switch mode {
        case .exactly:
            guard list.count == events.count else {
                fail(at: e.mark, label, expected: "\(list.count) \(noun)s", actual: "\(events.count): \(actualSummary)")
                return
            }
            for (i, item) in list.enumerated() {
                if let m = matcher.match(pattern(item), events[i]) {
                    fail(at: m.mark, "\(label)[\(i)]\(m.path.isEmpty ? "" : "." + m.path)", expected: m.expected,
                         actual: m.actual)
                    return
                }
            }
        case .ordered:
            var next = 0
            for item in list {
                guard let found = events[next...].firstIndex(where: { matcher.match(pattern(item), $0) == nil }) else {
                    fail(at: item.mark, label, expected: "a\(noun == "event" ? "n" : "") \(noun) matching \(describe(item)) after the previous ones",
                         actual: actualSummary)
                    return
                }
                next = found + 1
            }
        case .unordered, .contains:
            for item in list where !events.contains(where: { matcher.match(pattern(item), $0) == nil }) {
                fail(at: item.mark, label, expected: "a\(noun == "event" ? "n" : "") \(noun) matching \(describe(item))", actual: actualSummary)
                return
            }
        case .none:
            for item in list where events.contains(where: { matcher.match(pattern(item), $0) == nil }) {
                fail(at: item.mark, label, expected: "no \(noun) matching \(describe(item))", actual: actualSummary)
                return
            }
        }
    }

    private func describe(_ node: YAMLNode) -> String {
        String(decoding: substituted(node).jsonBytes, as: UTF8.self)
    }

    /// `fate: shown` (the push's last step), or `{push, is, steps, reason, device}`.
    private func checkFate(_ e: Expectation, reference: String, label: String) async throws {
        let apnsId = reference.isEmpty ? pushId : matcher.substitute(reference)
        guard let apnsId else {
            fail(at: e.mark, label, message: "no apns-id to look up (the push was not answered with one)")
            return
        }
        var query: [(name: String, value: String)] = [("apnsId", apnsId)]
        if let device = e.expected["device"]?.scalarText { query.append(("deviceId", device)) }
        let steps = try await control.object("GET", "/_emulator/deliveries", query: query)["deliveries"]
            as? [[String: Any]] ?? []
        let fates = steps.compactMap { $0["fate"] as? String }
        switch e.expected {
        case .scalar:
            compare(e.expected, fates.last, label: label)
        case .mapping(let pairs, _):
            for (key, value) in pairs {
                switch key.scalarText {
                case "is": compare(value, fates.last, label: label + ".is")
                case "steps": compare(value, fates, label: label + ".steps")
                case "reason": compare(value, steps.last?["reason"], label: label + ".reason")
                case "code": compare(value, steps.last?["code"], label: label + ".code")
                case "codes": compare(value, steps.compactMap { $0["code"] }, label: label + ".codes")
                case "push", "device": break
                default:
                    fail(at: key.mark, label, message: "unknown fate check '\(key.scalarText ?? "")' (is, steps, reason, code, codes, push, device)")
                }
            }
        default:
            compare(e.expected, fates, label: label)
        }
    }
}
