import Foundation

/// The readable report: one line per scenario as it ends, the failures with file:line:column and expected
/// versus actual, and a summary line.
public enum ConsoleReport {
    /// The lines for one finished scenario.
    public static func lines(for result: ScenarioResult) -> [String] {
        let time = String(format: "%.2f s", result.seconds)
        switch result.outcome {
        case .passed:
            return ["✔ \(result.scenario.name)  (\(result.scenario.location), \(time))"]
        case .failed:
            return ["✘ \(result.scenario.name)  (\(result.scenario.location), \(time))"]
                + result.failures.map { "    \($0)" }
        case .skipped:
            return ["- \(result.scenario.name)  (\(result.scenario.location), skipped: \(result.skipReason ?? ""))"]
        }
    }

    /// `41 scenarios: 40 passed, 1 failed (3.20 s)`, with `, 2 skipped` when some were.
    public static func summary(_ results: [ScenarioResult], seconds: Double) -> String {
        let failed = results.filter { $0.outcome == .failed }.count
        let skipped = results.filter { $0.outcome == .skipped }.count
        return "\(results.count) scenario\(results.count == 1 ? "" : "s"): \(results.count - failed - skipped) passed, "
            + "\(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "") + " (\(String(format: "%.2f", seconds)) s)"
    }

    /// `[12/41] name`, for a terminal's progress line.
    public static func progress(done: Int, total: Int, last: String) -> String {
        let width = 60
        let name = last.count > width ? String(last.prefix(width - 1)) + "…" : last
        return "[\(done)/\(total)] \(name)"
    }
}
