/// What a running command may use from its surroundings, injected so tests need neither a terminal nor signals.
public struct CommandContext: Sendable {
    /// Normal output (help, banners, results).
    public var output: OutputSink
    /// Diagnostics (errors, warnings).
    public var errorOutput: OutputSink
    /// Suspends until the process is asked to stop, returning the signal number; long-running commands await it.
    public var waitForStopSignal: @Sendable () async -> Int32

    /// - Parameters:
    ///   - output: Normal output.
    ///   - errorOutput: Diagnostics.
    ///   - waitForStopSignal: Suspends until the process should stop; defaults to SIGINT/SIGTERM.
    public init(
        output: OutputSink = .standardOutput,
        errorOutput: OutputSink = .standardError,
        waitForStopSignal: @escaping @Sendable () async -> Int32 = { await TerminationSignals.wait() }
    ) {
        self.output = output
        self.errorOutput = errorOutput
        self.waitForStopSignal = waitForStopSignal
    }
}
