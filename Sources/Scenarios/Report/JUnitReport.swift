import Foundation

/// The JUnit XML report CI systems read: `<testsuites><testsuite><testcase><failure|skipped|error>`, one testsuite
/// per scenario file (its path as the name) and one testcase per scenario; an invalid file is a testsuite with one
/// erroring testcase, so a CI dashboard names it too.
public enum JUnitReport {
    public static func xml(_ results: [ScenarioResult], seconds: Double, invalid: [ScenarioParseError] = [],
                           timestamp: Date = Date(), hostname: String = localHostName()) -> String {
        // The JUnit schema's timestamp has no zone: UTC, written without one.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        let stamp = formatter.string(from: timestamp)
        var byFile: [String: [ScenarioResult]] = [:]
        var order: [String] = []
        for r in results {
            if byFile[r.scenario.file] == nil { order.append(r.scenario.file) }
            byFile[r.scenario.file, default: []].append(r)
        }
        let failures = results.filter { $0.outcome == .failed }.count
        let skipped = results.filter { $0.outcome == .skipped }.count
        let host = escape(hostname)
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<testsuites name="apns-emulator scenarios" tests="\#(results.count + invalid.count)" failures="\#(failures)" errors="\#(invalid.count)" skipped="\#(skipped)" time="\#(format(seconds))" timestamp="\#(stamp)">"# + "\n"
        for e in invalid {
            out += #"  <testsuite name="\#(escape(e.file))" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="\#(stamp)" hostname="\#(host)">"# + "\n"
            out += #"    <testcase classname="\#(escape(className(e.file)))" name="invalid scenario file" file="\#(escape(e.file))" line="\#(e.line)" time="0.000">"# + "\n"
            out += #"      <error message="\#(escape("\(e)"))" type="InvalidScenario">\#(escape("\(e)"))</error>"# + "\n"
            out += "    </testcase>\n  </testsuite>\n"
        }
        for file in order {
            let cases = byFile[file] ?? []
            let f = cases.filter { $0.outcome == .failed }.count
            let s = cases.filter { $0.outcome == .skipped }.count
            let t = cases.reduce(0) { $0 + $1.seconds }
            out += #"  <testsuite name="\#(escape(file))" tests="\#(cases.count)" failures="\#(f)" errors="0" skipped="\#(s)" time="\#(format(t))" timestamp="\#(stamp)" hostname="\#(host)">"# + "\n"
            for r in cases {
                out += #"    <testcase classname="\#(escape(className(file)))" name="\#(escape(r.scenario.name))" file="\#(escape(file))" line="\#(r.scenario.mark.line)" time="\#(format(r.seconds))""#
                if r.outcome == .skipped {
                    out += ">\n" + #"      <skipped message="\#(escape(r.skipReason ?? ""))"/>"# + "\n    </testcase>\n"
                    continue
                }
                guard r.outcome == .failed, let first = r.failures.first else {
                    out += "/>\n"
                    continue
                }
                out += ">\n"
                let message = first.description
                let detail = r.failures.map(\.description).joined(separator: "\n")
                out += #"      <failure message="\#(escape(message))" type="ExpectationFailed">\#(escape(detail))</failure>"# + "\n"
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// This machine's name (`gethostname`: no lookup of its interfaces).
    public static func localHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `scenarios/tokens/basic.yaml` → `scenarios.tokens.basic`, the dotted class name CI tools group by.
    static func className(_ file: String) -> String {
        var name = file
        for ext in [".yaml", ".yml", ".json"] where name.hasSuffix(ext) { name = String(name.dropLast(ext.count)) }
        return name.split(separator: "/").filter { $0 != "." && $0 != ".." }.joined(separator: ".")
    }

    static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            // XML 1.0 cannot carry other control characters at all.
            case _ where c.value < 0x20 && c != "\t" && c != "\r": out += "?"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
