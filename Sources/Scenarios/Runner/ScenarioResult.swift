/// How one scenario ended.
public struct ScenarioResult: Sendable {
    public enum Outcome: String, Sendable {
        case passed
        case failed
        /// Not run (`skipReason` says why): an `external` scenario with no running emulator to wait on.
        case skipped
    }

    public var scenario: Scenario
    public var outcome: Outcome
    /// Failing expectations (and step errors), in the order met.
    public var failures: [ScenarioFailure]
    public var seconds: Double
    public var skipReason: String? = nil
    /// The steps run, in order (empty when setup failed or the scenario was skipped).
    public var steps: [ScenarioStepRecord] = []

    public init(scenario: Scenario, outcome: Outcome, failures: [ScenarioFailure], seconds: Double,
                skipReason: String? = nil) {
        self.scenario = scenario
        self.outcome = outcome
        self.failures = failures
        self.seconds = seconds
        self.skipReason = skipReason
    }

    /// A scenario not run.
    public static func skipped(_ scenario: Scenario, because reason: String) -> ScenarioResult {
        ScenarioResult(scenario: scenario, outcome: .skipped, failures: [], seconds: 0, skipReason: reason)
    }
}

/// One failed expectation or step, at its place in the file.
public struct ScenarioFailure: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// What was being checked (`expect.badge`, `step 3 (push)`).
    public var what: String
    public var expected: String?
    public var actual: String?
    /// A failure that is not a mismatch (the emulator refused a step, a connection failed).
    public var message: String?

    public var location: String { "\(file):\(line):\(column)" }

    public var description: String {
        if let message { return "\(location): \(what): \(message)" }
        return "\(location): \(what): expected \(expected ?? "?"), got \(actual ?? "?")"
    }
}
