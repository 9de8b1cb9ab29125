import Foundation

/// The machine-readable report (`--json FILE`).
///
/// `{"scenarios":[{"name","file","line","tags","outcome","skipReason"?,"seconds","failures":[{"location","file",
/// "line","column","what","expected","actual","message"}]}],"invalid":[{"file","line","column","message"}],"total",
/// "passed","failed","skipped","seconds"}`
public enum JSONReport {
    struct Report: Encodable {
        var scenarios: [Entry]
        var total: Int
        var invalid: [Invalid]
        var passed: Int
        var failed: Int
        var skipped: Int
        var seconds: Double
    }

    struct Invalid: Encodable {
        var file: String
        var line: Int
        var column: Int
        var message: String
    }

    struct Entry: Encodable {
        var name: String
        var file: String
        var line: Int
        var tags: [String]
        var outcome: String
        var skipReason: String?
        var seconds: Double
        var failures: [Failure]
    }

    struct Failure: Encodable {
        var location: String
        var file: String
        var line: Int
        var column: Int
        var what: String
        var expected: String?
        var actual: String?
        var message: String?
    }

    public static func data(_ results: [ScenarioResult], seconds: Double, invalid: [ScenarioParseError] = []) throws -> Data {
        let entries = results.map { r in
            Entry(name: r.scenario.name, file: r.scenario.file, line: r.scenario.mark.line, tags: r.scenario.tags,
                  outcome: r.outcome.rawValue, skipReason: r.skipReason, seconds: r.seconds,
                  failures: r.failures.map {
                      Failure(location: $0.location, file: $0.file, line: $0.line, column: $0.column, what: $0.what,
                              expected: $0.expected, actual: $0.actual, message: $0.message)
                  })
        }
        let failed = results.filter { $0.outcome == .failed }.count
        let skipped = results.filter { $0.outcome == .skipped }.count
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(Report(
            scenarios: entries, total: results.count,
            invalid: invalid.map { Invalid(file: $0.file, line: $0.line, column: $0.column, message: $0.message) },
            passed: results.count - failed - skipped, failed: failed, skipped: skipped, seconds: seconds))
    }
}
