import Foundation

/// Finds scenario files, parses them, and runs the scenarios (in parallel where independent).
public struct ScenarioRunner: Sendable {
    public struct Options: Sendable {
        /// The bundled certs (CA, client certificates, sample key).
        public var certificatesDirectory: String
        /// Control URL of a running emulator to use instead of one in-process per scenario.
        public var emulatorURL: String?
        public var controlToken: String?
        /// Scenarios run at once (each in-process one has its own emulator); 1 with `emulatorURL`.
        public var jobs: Int
        /// How long a push step waits for the emulator's answer before the step fails (a delay fault longer
        /// than this, or a stalled `--emulator`, must not hang a CI job).
        public var responseTimeout: Duration
        /// With `emulatorURL`: reset it before each scenario (false keeps its keys, tokens and journal, and only
        /// replaces the scenario's own devices).
        public var resetRemote: Bool

        public init(certificatesDirectory: String, emulatorURL: String? = nil, controlToken: String? = nil, jobs: Int = 2,
                    responseTimeout: Duration = .seconds(30), resetRemote: Bool = true) {
            self.resetRemote = resetRemote
            self.certificatesDirectory = certificatesDirectory
            self.emulatorURL = emulatorURL
            self.controlToken = controlToken
            self.jobs = jobs
            self.responseTimeout = responseTimeout
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Scenario files under `paths`: `.yaml`, `.yml` and `.json` files, folders searched recursively, in
    /// sorted order. Files whose name starts with `_` and folders named `fragments` hold shared fragments
    /// (`include:`), not scenarios, and are skipped.
    public static func discover(_ paths: [String]) throws(RunnerError) -> [String] {
        var files: [String] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw RunnerError("no such file or folder: \(path)")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let base = URL(fileURLWithPath: path)
            let found = (fm.enumerator(atPath: path)?.allObjects as? [String] ?? []).filter { relative in
                let parts = relative.split(separator: "/")
                guard let name = parts.last, !name.hasPrefix("_"), !parts.dropLast().contains("fragments") else { return false }
                return name.hasSuffix(".yaml") || name.hasSuffix(".yml") || name.hasSuffix(".json")
            }
            files += found.sorted().map { path == "." ? $0 : base.appendingPathComponent($0).relativePath }
        }
        return files
    }

    /// Parses every file; scenarios of valid files, and the error of each invalid one.
    public static func load(_ files: [String]) -> (scenarios: [Scenario], errors: [ScenarioParseError]) {
        var scenarios: [Scenario] = []
        var errors: [ScenarioParseError] = []
        for file in files {
            do {
                scenarios += try ScenarioParser.parse(file: file)
            } catch {
                errors.append(error)
            }
        }
        return (scenarios, errors)
    }

    /// Runs `scenarios`; `finished` is called as each ends (from the runner's tasks, one at a time).
    public func run(_ scenarios: [Scenario], finished: @escaping @Sendable (ScenarioResult) -> Void = { _ in }) async
        -> [ScenarioResult]
    {
        let jobs = options.emulatorURL == nil ? max(1, options.jobs) : 1
        var results = [ScenarioResult?](repeating: nil, count: scenarios.count)
        await withTaskGroup(of: (Int, ScenarioResult).self) { group in
            var next = 0
            func startNext() {
                guard next < scenarios.count else { return }
                let index = next
                next += 1
                group.addTask { (index, await self.runOne(scenarios[index])) }
            }
            for _ in 0..<jobs { startNext() }
            while let (index, result) = await group.next() {
                results[index] = result
                finished(result)
                startNext()
            }
        }
        return results.compactMap { $0 }
    }

    /// One scenario against its own emulator (or the shared one, reset first).
    public func runOne(_ scenario: Scenario) async -> ScenarioResult {
        let started = Date()
        let target: EmulatorTarget
        do {
            if let url = options.emulatorURL {
                guard scenario.emulator.isDefault else {
                    throw RunnerError("the scenario sets 'emulator:' options, which only an in-process emulator can take")
                }
                target = try await EmulatorTarget.remote(controlURL: url, controlToken: options.controlToken,
                                                         certificatesDirectory: options.certificatesDirectory,
                                                         clock: scenario.clock, reset: options.resetRemote,
                                                         deviceIds: scenario.devices.map(\.id))
            } else {
                target = try EmulatorTarget.inProcess(certificatesDirectory: options.certificatesDirectory,
                                                      clock: scenario.clock, options: scenario.emulator)
            }
        } catch {
            let failure = ScenarioFailure(file: scenario.file, line: scenario.mark.line, column: scenario.mark.column,
                                          what: "emulator", message: "could not start: \(error)")
            return ScenarioResult(scenario: scenario, outcome: .failed, failures: [failure],
                                  seconds: Date().timeIntervalSince(started))
        }
        let run = ScenarioRun(scenario: scenario, target: target, responseTimeout: options.responseTimeout)
        await run.run()
        // Closing the senders' clients joins their loop threads: quick. The emulator's graceful stop can
        // take its grace period, so it leaves the cooperative pool.
        run.close()
        var result = ScenarioResult(scenario: scenario, outcome: run.failures.isEmpty ? .passed : .failed,
                                    failures: run.failures, seconds: Date().timeIntervalSince(started))
        result.steps = run.steps
        // A live emulator keeps a list of the runs against it (its dashboard shows them); one without it says 404.
        if options.emulatorURL != nil { _ = try? await target.control.request(
            "POST", "/_emulator/scenario-runs", query: [], body: Self.runRecord(result)) }
        await Self.offPool { target.stop() }
        return result
    }

    /// `{"name", "file", "outcome", "seconds", "failures": [text], "steps": [ScenarioStepRecord]}`.
    static func runRecord(_ r: ScenarioResult) -> [UInt8] {
        let steps = r.steps.map { ["index": $0.index, "kind": $0.kind, "line": $0.line, "outcome": $0.outcome,
                                   "seconds": $0.seconds] as [String: Any] }
        let object: [String: Any] = ["name": r.scenario.name, "file": r.scenario.file, "outcome": r.outcome.rawValue,
                                     "seconds": r.seconds, "failures": r.failures.map(\.description), "steps": steps]
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8))
    }

    /// Blocking shutdowns run on their own thread so the cooperative pool keeps serving other scenarios.
    static func offPool(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                body()
                c.resume()
            }
        }
    }
}
