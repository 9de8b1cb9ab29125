import APNsEmulator
import APNsProtocol
import EmulatorControl
import Foundation
import VirtualDevices

/// Turns scenario files into `Scenario` values, refusing anything it does not understand with
/// file:line:column and what was expected there. A file is parsed whole before anything runs, so an
/// invalid file never runs half-way.
///
/// ### Format
/// See `docs/scenarios.md`. Top-level keys: `name`, `tags`, `description`, `clock`, `include`,
/// `profiles`, `devices`, `senders`, `steps`. Device and app fields are those of the control API's
/// `POST /_emulator/devices` (validated by the same code), so a scenario can describe anything the API
/// can create.
public struct ScenarioParser {
    let file: String

    public init(file: String) {
        self.file = file
    }

    /// Parses every scenario (one per YAML document) in `text`.
    public func parse(_ text: String) throws(ScenarioParseError) -> [Scenario] {
        let documents: [YAMLNode]
        do {
            documents = try YAMLLoader.loadAll(text)
        } catch {
            throw ScenarioParseError(file: file, mark: error.mark, "invalid YAML: \(error.message)")
        }
        guard !documents.isEmpty else {
            throw ScenarioParseError(file: file, mark: .init(line: 1, column: 1), "the file holds no scenario")
        }
        return try documents.map { (d) throws(ScenarioParseError) in try scenario(d) }
    }

    /// Reads a file from disk and parses it.
    public static func parse(file path: String) throws(ScenarioParseError) -> [Scenario] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ScenarioParseError(file: path, mark: .init(line: 1, column: 1), "cannot read the file (missing, or not UTF-8)")
        }
        return try ScenarioParser(file: path).parse(text)
    }

    // MARK: Scenario

    func scenario(_ node: YAMLNode) throws(ScenarioParseError) -> Scenario {
        var r = try NodeReader(node, file: file, context: "a scenario")
        let name = try r.string("name", required: true) ?? ""
        let tags = try r.stringList("tags") ?? []
        _ = try r.string("description")
        let clockText = try r.string("clock") ?? "manual"
        guard let clock = Scenario.ClockMode(rawValue: clockText) else {
            throw r.error(r.value("clock")!, "'clock' must be manual or real, got '\(clockText)'")
        }
        var fragments = Fragments()
        for path in try r.stringList("include") ?? [] {
            fragments.merge(try include(path, at: r.value("include")!))
        }
        if let profiles = r.value("profiles") { fragments.merge(try self.fragments(profiles: profiles, senders: nil)) }
        if let senders = r.value("senders") { fragments.merge(try self.fragments(profiles: nil, senders: senders)) }
        let devices = try self.devices(r.value("devices"), profiles: fragments.profiles)
        let emulator = try emulatorOptions(r.value("emulator"))
        let files = try self.files(r.value("files"))
        let stepsNode = try r.required("steps", "a list of steps")
        try r.finish()

        var senders = fragments.senders
        if senders["default"] == nil {
            senders["default"] = SenderSpec(name: "default", auth: .bundledKey, issuedAtOffsetMillis: 0, mark: node.mark)
        }
        guard case .sequence(let items, _) = stepsNode else {
            throw ScenarioParseError(file: file, mark: stepsNode.mark, "'steps' must be a list, got \(stepsNode.kindDescription)")
        }
        let context = StepParser(file: file, devices: devices, senders: senders, clock: clock)
        let steps = try items.map { (item) throws(ScenarioParseError) in try context.step(item) }
        try VariableReferences.check(steps: items, steps, devices: r.value("devices"), file: file)
        var scenario = Scenario(name: name, tags: tags, file: file, mark: node.mark, clock: clock, devices: devices,
                                senders: senders, steps: steps, emulator: emulator)
        scenario.files = files
        return scenario
    }

    /// `files: {name: path | {size: 11MB, like: path}}`: a file next to the scenario, or one of a given size
    /// made of another's first bytes and padding (an oversize attachment without a huge fixture).
    func files(_ node: YAMLNode?) throws(ScenarioParseError) -> [(name: String, bytes: [UInt8])] {
        guard let node else { return [] }
        guard case .mapping(let pairs, _) = node else {
            throw ScenarioParseError(file: file, mark: node.mark, "'files' must map file names to paths")
        }
        let base = URL(fileURLWithPath: file).absoluteURL.deletingLastPathComponent()
        func read(_ path: String, _ at: YAMLNode) throws(ScenarioParseError) -> [UInt8] {
            let full = path.hasPrefix("/") ? path : base.appendingPathComponent(path).standardized.path
            guard let data = FileManager.default.contents(atPath: full) else {
                throw ScenarioParseError(file: file, mark: at.mark, "cannot read '\(path)' (looked at \(full))")
            }
            return Array(data)
        }
        var out: [(name: String, bytes: [UInt8])] = []
        for (key, value) in pairs {
            let name = key.scalarText ?? ""
            switch value {
            case .scalar(let path, _, _):
                out.append((name, try read(path, value)))
            default:
                var r = try NodeReader(value, file: file, context: "file '\(name)'")
                let like = try r.string("like", required: true) ?? ""
                let sizeNode = r.value("size")
                try r.finish()
                guard let sizeText = sizeNode?.scalarText, let size = Self.bytes(sizeText), size <= 16 * 1024 * 1024 else {
                    throw ScenarioParseError(file: file, mark: (sizeNode ?? value).mark,
                                             "'size' must be a size such as 11MB or 500KB (at most 16MB)")
                }
                let head = try read(like, value["like"] ?? value)
                out.append((name, Array(head.prefix(size)) + [UInt8](repeating: 0, count: max(0, size - head.count))))
            }
        }
        return out
    }

    static func bytes(_ text: String) -> Int? {
        let units: [(String, Int)] = [("MB", 1024 * 1024), ("KB", 1024), ("B", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let n = Double(text.dropLast(suffix.count)), n.isFinite, n >= 0, n * Double(factor) <= 1e9 else { return nil }
            return Int(n * Double(factor))
        }
        return Int(text).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `emulator:` settings for the scenario's own emulator.
    func emulatorOptions(_ node: YAMLNode?) throws(ScenarioParseError) -> Scenario.EmulatorOptions {
        var o = Scenario.EmulatorOptions()
        guard let node else { return o }
        var r = try NodeReader(node, file: file, context: "emulator settings")
        o.tokenRateLimit = try r.int("tokenRateLimit", in: 0...1_000_000)
        o.tokenRateWindowMillis = try r.duration("tokenRateWindow")
        o.lowPriorityDelayMillis = try r.duration("lowPriorityDelay")
        o.maximumChannelsPerApp = try r.int("maximumChannelsPerApp", in: 1...1_000_000)
        o.realism = try r.string("realism")
        try r.finish()
        if let realism = o.realism, realism != "documented" && realism != "strict" {
            throw r.error(node["realism"]!, "'realism' must be documented or strict, got '\(realism)'")
        }
        return o
    }

    // MARK: Fragments

    /// Device profiles and senders, declared once (in the file or an included one) and referenced by name.
    struct Fragments {
        var profiles: [String: Profile] = [:]
        var senders: [String: SenderSpec] = [:]

        mutating func merge(_ other: Fragments) {
            profiles.merge(other.profiles) { _, new in new }
            senders.merge(other.senders) { _, new in new }
        }
    }

    /// A device profile and the file it was declared in (an included one reports its errors under its own name).
    struct Profile {
        var node: YAMLNode
        var file: String
    }

    /// `include: [path]`: a fragments file next to the scenario, holding only `profiles` and `senders`.
    func include(_ path: String, at node: YAMLNode) throws(ScenarioParseError) -> Fragments {
        let base = URL(fileURLWithPath: file).absoluteURL.deletingLastPathComponent()
        let full = path.hasPrefix("/") ? path : base.appendingPathComponent(path).standardized.path
        guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
            throw ScenarioParseError(file: file, mark: node.mark, "cannot read included file '\(path)' (looked at \(full))")
        }
        let included = ScenarioParser(file: full)
        let root: YAMLNode?
        do {
            root = try YAMLLoader.load(text)
        } catch {
            throw ScenarioParseError(file: full, mark: error.mark, "invalid YAML: \(error.message)")
        }
        guard let root else { return Fragments() }
        var r = try NodeReader(root, file: full, context: "a fragments file")
        let profiles = r.value("profiles")
        let senders = r.value("senders")
        try r.finish()
        return try included.fragments(profiles: profiles, senders: senders)
    }

    func fragments(profiles: YAMLNode?, senders: YAMLNode?) throws(ScenarioParseError) -> Fragments {
        var f = Fragments()
        if let profiles {
            guard case .mapping(let pairs, _) = profiles else {
                throw ScenarioParseError(file: file, mark: profiles.mark, "'profiles' must map names to device settings")
            }
            for (key, value) in pairs {
                guard case .mapping = value else {
                    throw ScenarioParseError(file: file, mark: value.mark, "profile '\(key.scalarText ?? "")' must be a mapping")
                }
                f.profiles[key.scalarText ?? ""] = Profile(node: value, file: file)
            }
        }
        if let senders {
            guard case .mapping(let pairs, _) = senders else {
                throw ScenarioParseError(file: file, mark: senders.mark, "'senders' must map names to sender settings")
            }
            for (key, value) in pairs {
                let name = key.scalarText ?? ""
                f.senders[name] = try sender(name, value)
            }
        }
        return f
    }

    // MARK: Senders

    func sender(_ name: String, _ node: YAMLNode) throws(ScenarioParseError) -> SenderSpec {
        var r = try NodeReader(node, file: file, context: "sender '\(name)'")
        let authText = try r.string("auth") ?? "token"
        let keyNode = r.value("key")
        let environmentText = try r.string("environment")
        let authorization = try r.string("authorization")
        let issuedAt = try r.duration("issuedAt", allowNegative: true) ?? 0
        try r.finish()
        let auth: SenderSpec.Auth
        switch authText {
        case "token":
            if let authorization {
                auth = .raw(authorization)
            } else if let keyNode {
                var k = try NodeReader(keyNode, file: file, context: "sender '\(name)' key")
                let kind = try k.string("kind") ?? "team"
                let environment = try k.string("environment")
                let topics = try k.stringList("topics") ?? []
                let teamId = try k.string("teamId") ?? "SCENTEAM01"
                let keyId = try k.string("keyId") ?? Self.keyId(for: name)
                try k.finish()
                guard ["team", "team-scoped", "topic"].contains(kind) else {
                    throw k.error(keyNode["kind"] ?? keyNode, "key 'kind' must be team, team-scoped or topic, got '\(kind)'")
                }
                if let environment, APNsEnvironment(rawValue: environment) == nil {
                    throw k.error(keyNode["environment"] ?? keyNode, "key 'environment' must be production or sandbox")
                }
                auth = .generatedKey(kind: kind, environment: environment, topics: topics, teamId: teamId, keyId: keyId)
            } else {
                auth = .bundledKey
            }
        case "certificate":
            guard let environment = APNsEnvironment(rawValue: environmentText ?? "") else {
                throw r.error(node["environment"] ?? node, "a certificate sender needs 'environment: production' or 'sandbox'")
            }
            auth = .certificate(environment)
        case "none":
            auth = .none
        default:
            throw r.error(node["auth"] ?? node, "'auth' must be token, certificate or none, got '\(authText)'")
        }
        return SenderSpec(name: name, auth: auth, issuedAtOffsetMillis: issuedAt, mark: node.mark)
    }

    /// A stable 10-character key id per sender name (Apple key ids are 10 uppercase alphanumerics).
    static func keyId(for name: String) -> String {
        var hash: UInt64 = 1469598103934665603
        for b in name.utf8 { hash = (hash ^ UInt64(b)) &* 1099511628211 }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<10).map { i in alphabet[Int((hash >> (UInt64(i) * 5)) & 31) % alphabet.count] })
    }

    // MARK: Devices

    func devices(_ node: YAMLNode?, profiles: [String: Profile]) throws(ScenarioParseError) -> [DeviceSpec] {
        guard let node else { return [] }
        guard case .sequence(let items, _) = node else {
            throw ScenarioParseError(file: file, mark: node.mark, "'devices' must be a list, got \(node.kindDescription)")
        }
        var specs: [DeviceSpec] = []
        for (index, item) in items.enumerated() {
            guard let spec = try device(item, index: index, profiles: profiles) else { continue }
            if specs.contains(where: { $0.id == spec.id }) {
                throw ScenarioParseError(file: file, mark: item.mark, "device id '\(spec.id)' is used twice")
            }
            specs.append(spec)
        }
        return specs
    }

    /// A device of the scenario; nil for one written to be refused (`expectError: text`), which it was, with a
    /// message containing that text.
    func device(_ node: YAMLNode, index: Int, profiles: [String: Profile]) throws(ScenarioParseError) -> DeviceSpec? {
        guard case .mapping(var pairs, let mark) = node else {
            throw ScenarioParseError(file: file, mark: node.mark, "a device must be a mapping, got \(node.kindDescription)")
        }
        var expectError: (text: String, mark: YAMLNode.Mark)?
        if let i = pairs.firstIndex(where: { $0.key.scalarText == "expectError" }) {
            let e = pairs.remove(at: i)
            guard let text = e.value.scalarText, !text.isEmpty else {
                throw ScenarioParseError(file: file, mark: e.value.mark,
                                         "'expectError' must be the text the refusal's message contains")
            }
            expectError = (text, e.value.mark)
        }
        // Keys the profile supplied, and its file: an error in one of them points into the profile.
        var fromProfile: (keys: Set<String>, file: String)?
        if let i = pairs.firstIndex(where: { $0.key.scalarText == "profile" }) {
            let ref = pairs.remove(at: i)
            guard let name = ref.value.scalarText, let profile = profiles[name],
                  case .mapping(let base, _) = profile.node else {
                throw ScenarioParseError(file: file, mark: ref.value.mark,
                                         "unknown profile '\(ref.value.scalarText ?? "")' (declared: "
                                            + profiles.keys.sorted().joined(separator: ", ") + ")")
            }
            var supplied = Set<String>()
            for p in base where !pairs.contains(where: { $0.key.scalarText == p.key.scalarText }) {
                pairs.append(p)
                supplied.insert(p.key.scalarText ?? "")
            }
            fromProfile = (supplied, profile.file)
        }
        if !pairs.contains(where: { $0.key.scalarText == "id" }) {
            pairs.insert((.scalar("id", quoted: false, mark), .scalar("device-\(index + 1)", quoted: true, mark)), at: 0)
        }
        let merged = YAMLNode.mapping(pairs, mark)
        // The control API's own reader decides what a device may hold, and its field paths point at lines.
        let read: Result<(DeviceConfiguration, [AppConfiguration]), ControlAPIError>
        do {
            let body = try JSONBodyReader.parse(merged.jsonBytes)
            let fields = DeviceRequestReaders.readDevice(body)
            try body.finish()
            read = .success(try DeviceRequestReaders.device(fields))
        } catch {
            read = .failure(error)
        }
        switch (read, expectError) {
        case (.success((let config, let apps)), nil):
            return DeviceSpec(
                id: config.id, body: merged.jsonBytes, bundleIds: apps.map(\.bundleId),
                environments: Dictionary(apps.map { ($0.bundleId, $0.build.tokenEnvironment) }) { a, _ in a },
                mark: mark)
        case (.success, let expected?):
            throw ScenarioParseError(file: file, mark: expected.mark,
                                     "the device was expected to be refused (expectError: \(expected.text)), but it is valid")
        case (.failure(let error), let expected?):
            guard error.message.contains(expected.text) else {
                throw ScenarioParseError(file: file, mark: expected.mark,
                                         "the device was refused with \"\(error.message)\", which does not contain"
                                            + " \"\(expected.text)\"")
            }
            return nil
        case (.failure(let error), nil):
            let at = error.field.map { merged.node(at: $0) } ?? merged
            let topKey = error.field.map { String($0.prefix { $0 != "." && $0 != "[" }) }
            if let fromProfile, let topKey, fromProfile.keys.contains(topKey) {
                throw ScenarioParseError(file: fromProfile.file, mark: at.mark, "device profile: \(error.message)")
            }
            throw ScenarioParseError(file: file, mark: at.mark, "device: \(error.message)")
        }
    }
}
