import APNsEmulator
import Foundation
import Scenarios
import Synchronization

/// `apns-emulator test [FILES or FOLDERS…]`: runs scenario files and reports, for CI.
///
/// Every file is parsed before anything runs: an invalid file is reported with file:line:column, the valid
/// ones still run, and the run ends with exit 64, so CI cannot go green on a typo.
public struct TestCommand: Command {
    enum Option {
        static let junit = OptionDeclaration.value("junit", valueName: "file", help: "Write a JUnit XML report there.")
        static let json = OptionDeclaration.value("json", valueName: "file", help: "Write a JSON report there.")
        static let tag = OptionDeclaration.value(
            "tag", valueName: "tag", help: "Run only scenarios with this tag (repeat for any of several).")
        static let excludeTag = OptionDeclaration.value(
            "exclude-tag", valueName: "tag", help: "Leave out scenarios with this tag (repeat for several).")
        static let noReset = OptionDeclaration.flag(
            "no-reset", help: "With --emulator: keep its keys, tokens and journal (only the scenario's own devices are replaced).")
        static let name = OptionDeclaration.value(
            "name", valueName: "text", help: "Run only scenarios whose name contains this text (case-insensitive).")
        static let emulator = OptionDeclaration.value(
            "emulator", valueName: "url",
            help: "Control URL of a running emulator (started with --manual-clock) to use instead of one "
                + "in-process per scenario; it is reset before each scenario (keys, tokens, journal, devices) "
                + "unless --no-reset.")
        static let controlToken = OptionDeclaration.value(
            "control-token", valueName: "token", help: "Bearer token for --emulator's control API.")
        static let certificates = OptionDeclaration.value(
            "certs", valueName: "dir", help: "Folder with the CA, client certificates and sample key.",
            default: EmulatorConfiguration().certificatesDirectory)
        static let jobs = OptionDeclaration.value(
            "jobs", valueName: "n", help: "Scenarios run at once (each on its own in-process emulator).",
            default: "the number of cores")
        static let responseTimeout = OptionDeclaration.value(
            "response-timeout", valueName: "seconds",
            help: "How long a push step waits for the emulator's answer before the step fails.", default: "30")
        static let all = [junit, json, tag, excludeTag, name, emulator, noReset, controlToken, certificates, jobs,
                          responseTimeout]
    }

    public static let configuration = CommandConfiguration(
        name: "test",
        abstract: "Run scenario files and report (exit 0 all passed, 1 a scenario failed, 64 invalid input).",
        discussion: """
            Arguments are scenario files (.yaml, .yml, .json) or folders searched recursively (files named \
            _*.yaml and folders named fragments hold shared fragments and are skipped); with none, \
            'scenarios' is used. Each scenario runs against a fresh in-process emulator on free ports, unless \
            --emulator names a running one. Scenarios tagged external wait for your own sender: they are \
            skipped (and reported so) unless --emulator is given or --tag external asks for them. A failure \
            names the expectation's file:line:column with what was expected and what came. The format is \
            described in docs/scenarios.md.

            Examples:
              apns-emulator test scenarios/ --junit report.xml
              apns-emulator test --tag tokens --name cold
              apns-emulator test --exclude-tag extension
              apns-emulator test --emulator http://127.0.0.1:8765 --no-reset scenarios/external
            """,
        options: Option.all
    )

    var paths: [String]
    var junit: String?
    var json: String?
    var tags: [String]
    var excludedTags: [String]
    var noReset: Bool
    var nameFilter: String?
    var emulator: String?
    var controlToken: String?
    var certificates: String
    var jobs: Int
    var responseTimeout: Double

    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options, allowingOperands: true)
        paths = options.operands.map(\.text)
        if paths.isEmpty { paths = ["scenarios"] }
        junit = try options.string(Option.junit)
        json = try options.string(Option.json)
        tags = options.all(Option.tag).compactMap(\.value)
        excludedTags = options.all(Option.excludeTag).compactMap(\.value)
        noReset = options.flag(Option.noReset)
        nameFilter = try options.string(Option.name)
        emulator = try options.value(Option.emulator, expected: "an http:// URL of the control API") { text in
            text.hasPrefix("http://") || text.hasPrefix("https://") ? text : nil
        }
        controlToken = try options.string(Option.controlToken)
        certificates = try options.string(Option.certificates) ?? EmulatorConfiguration().certificatesDirectory
        jobs = try options.integer(Option.jobs, in: 1...64) ?? ProcessInfo.processInfo.activeProcessorCount
        responseTimeout = try options.seconds(Option.responseTimeout, allowingZero: false) ?? 30
    }

    public func run(context: CommandContext) async throws -> ExitCode {
        let started = Date()
        let files: [String]
        do {
            files = try ScenarioRunner.discover(paths)
        } catch {
            context.errorOutput.writeLine("error: \(error)")
            return .usage
        }
        let (all, errors) = ScenarioRunner.load(files)
        // An invalid file is reported and the others still run; the run then ends 64 (invalid input).
        for e in errors { context.errorOutput.writeLine("error: \(e)") }
        let invalid = "\(errors.count) invalid scenario file\(errors.count == 1 ? "" : "s")"
        guard !all.isEmpty || errors.isEmpty else {
            context.errorOutput.writeLine("\(invalid): nothing was run")
            try writeReports([], seconds: Date().timeIntervalSince(started), invalid: errors)
            return .usage
        }
        let selected = all.filter { s in
            (tags.isEmpty || !Set(tags).isDisjoint(with: s.tags)) && Set(excludedTags).isDisjoint(with: s.tags)
                && (nameFilter.map { s.name.localizedCaseInsensitiveContains($0) } ?? true)
        }
        // An external scenario waits for the user's own sender: without a running emulator it could only time out.
        let skipExternal = emulator == nil && !tags.contains("external")
        let (toRun, notRun) = selected.reduce(into: ([Scenario](), [Scenario]())) { parts, s in
            if skipExternal && s.tags.contains("external") { parts.1.append(s) } else { parts.0.append(s) }
        }
        let skipped = notRun.map {
            ScenarioResult.skipped($0, because: "tagged external: it waits for your own sender; run it with --emulator URL"
                                   + " (or --tag external)")
        }
        guard !selected.isEmpty else {
            context.errorOutput.writeLine("error: no scenario matched (\(all.count) found in \(files.count) file(s))")
            return .usage
        }
        let ca = URL(fileURLWithPath: certificates).appendingPathComponent("ca.pem").path
        guard FileManager.default.fileExists(atPath: ca) else {
            context.errorOutput.writeLine("error: \(ca) is missing: pass --certs DIR, or run 'apns-emulator certs' to create"
                                          + " the development certificates")
            return .usage
        }
        for result in skipped { for line in ConsoleReport.lines(for: result) { context.output.writeLine(line) } }
        if toRun.isEmpty {
            context.errorOutput.writeLine("error: no scenario ran: the \(skipped.count) selected wait for your own sender;"
                                          + " run them with --emulator URL (or --tag external)")
            try writeReports(skipped, seconds: Date().timeIntervalSince(started), invalid: errors)
            return .usage
        }
        if noReset && emulator == nil {
            context.errorOutput.writeLine("error: --no-reset applies to --emulator (an in-process emulator starts empty)")
            return .usage
        }
        if let emulator {
            context.errorOutput.writeLine(noReset
                ? "note: using \(emulator) as it is (--no-reset): only the scenarios' own devices are replaced"
                : "note: \(emulator) is reset before each scenario (keys, tokens, journal, devices); --no-reset keeps them")
        }
        let runner = ScenarioRunner(options: .init(certificatesDirectory: certificates, emulatorURL: emulator,
                                                   controlToken: controlToken, jobs: jobs,
                                                   responseTimeout: .milliseconds(max(1, Int64(min(responseTimeout, 86_400) * 1000))),
                                                   resetRemote: !noReset))
        let terminal = isatty(STDERR_FILENO) == 1
        let progress = Progress(total: toRun.count)
        let output = context.output
        let errorOutput = context.errorOutput
        let ran = await runner.run(toRun) { result in
            let done = progress.finish()
            if terminal { errorOutput.write("\r\u{1B}[K") }
            for line in ConsoleReport.lines(for: result) { output.writeLine(line) }
            if terminal && done < toRun.count {
                errorOutput.write(ConsoleReport.progress(done: done, total: toRun.count, last: result.scenario.name))
            }
        }
        let results = skipped + ran
        let seconds = Date().timeIntervalSince(started)
        output.writeLine(ConsoleReport.summary(results, seconds: seconds))
        try writeReports(results, seconds: seconds, invalid: errors)
        if !errors.isEmpty {
            context.errorOutput.writeLine("\(invalid) (listed above): the others ran")
            return .usage
        }
        return results.allSatisfy { $0.outcome != .failed } ? .success : .failure
    }

    /// The JUnit and JSON files asked for, written whatever the outcome (an invalid file is in them too).
    private func writeReports(_ results: [ScenarioResult], seconds: Double, invalid: [ScenarioParseError]) throws {
        if let junit {
            try JUnitReport.xml(results, seconds: seconds, invalid: invalid).write(toFile: junit, atomically: true,
                                                                                   encoding: .utf8)
        }
        if let json {
            try JSONReport.data(results, seconds: seconds, invalid: invalid).write(to: URL(fileURLWithPath: json),
                                                                                   options: .atomic)
        }
    }

    /// Counts finished scenarios across the runner's tasks.
    final class Progress: Sendable {
        let total: Int
        private let done = Mutex(0)
        init(total: Int) { self.total = total }
        func finish() -> Int { done.withLock { $0 += 1; return $0 } }
    }
}
