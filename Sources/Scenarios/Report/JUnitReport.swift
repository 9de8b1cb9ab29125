import Foundation

/// The JUnit XML report CI systems read: `<testsuites><testsuite><testcase><failure>`, one testsuite per
/// scenario file (its path as the name) and one testcase per scenario.
public enum JUnitReport {
    public static func xml(_ results: [ScenarioResult], seconds: Double) -> String {
        var byFile: [String: [ScenarioResult]] = [:]
        var order: [String] = []
        for r in results {
            if byFile[r.scenario.file] == nil { order.append(r.scenario.file) }
            byFile[r.scenario.file, default: []].append(r)
        }
        let failures = results.filter { $0.outcome == .failed }.count
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        out += #"<testsuites name="apns-emulator scenarios" tests="\#(results.count)" failures="\#(failures)" errors="0" time="\#(format(seconds))">"# + "\n"
        for file in order {
            let cases = byFile[file] ?? []
            let f = cases.filter { $0.outcome == .failed }.count
            let t = cases.reduce(0) { $0 + $1.seconds }
            out += #"  <testsuite name="\#(escape(file))" tests="\#(cases.count)" failures="\#(f)" errors="0" skipped="0" time="\#(format(t))">"# + "\n"
            for r in cases {
                out += #"    <testcase classname="\#(escape(className(file)))" name="\#(escape(r.scenario.name))" file="\#(escape(file))" line="\#(r.scenario.mark.line)" time="\#(format(r.seconds))""#
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
