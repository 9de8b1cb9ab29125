/// How one scenario ended.
public struct ScenarioResult: Sendable {
    public enum Outcome: String, Sendable {
        case passed
        case failed
    }

    public var scenario: Scenario
    public var outcome: Outcome
    /// Failing expectations (and step errors), in the order met.
    public var failures: [ScenarioFailure]
    public var seconds: Double
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
