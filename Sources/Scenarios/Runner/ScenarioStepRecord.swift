/// How one step of a run went, for reports that show a run step by step (the dashboard's run list).
public struct ScenarioStepRecord: Sendable, Equatable, Encodable {
    public var index: Int
    /// The step's kind (`call`, `push`, `expect`…).
    public var kind: String
    public var line: Int
    /// `passed` or `failed`; steps after a failure are not run and not listed.
    public var outcome: String
    public var seconds: Double
}
