import EmulatorControl
import Foundation

/// A strict reader over one YAML mapping of a scenario file, the file-side twin of the control API's
/// `JSONBodyReader`: each field is asked for by name and type, and `finish()` refuses any field nobody
/// asked for, naming the ones that are allowed, so a typo is an error with a line number instead of a
/// silently ignored setting.
struct NodeReader {
    let file: String
    let node: YAMLNode
    /// What this mapping is (`step`, `push`, `device`), for messages.
    let context: String
    private let pairs: [(key: YAMLNode, value: YAMLNode)]
    private var known: [String] = []

    init(_ node: YAMLNode, file: String, context: String) throws(ScenarioParseError) {
        guard case .mapping(let pairs, _) = node else {
            throw ScenarioParseError(file: file, mark: node.mark, "expected \(context) as a mapping, got \(node.kindDescription)")
        }
        self.file = file
        self.node = node
        self.context = context
        self.pairs = pairs
    }

    func error(_ at: YAMLNode, _ message: String) -> ScenarioParseError {
        ScenarioParseError(file: file, mark: at.mark, message)
    }

    /// Keys present, in file order.
    var keys: [String] { pairs.compactMap { $0.key.scalarText } }

    mutating func value(_ name: String) -> YAMLNode? {
        if !known.contains(name) { known.append(name) }
        guard let v = pairs.first(where: { $0.key.scalarText == name })?.value else { return nil }
        if case .scalar(let text, false, _) = v, YAMLNode.isNull(text) { return nil }
        return v
    }

    mutating func required(_ name: String, _ expected: String) throws(ScenarioParseError) -> YAMLNode {
        guard let v = value(name) else {
            throw error(node, "\(context) is missing '\(name)' (\(expected))")
        }
        return v
    }

    mutating func string(_ name: String, required: Bool = false) throws(ScenarioParseError) -> String? {
        guard let v = required ? try self.required(name, "a string") : value(name) else { return nil }
        guard case .scalar(let text, _, _) = v else {
            throw error(v, "'\(name)' must be a string, got \(v.kindDescription)")
        }
        return text
    }

    mutating func int(_ name: String, in range: ClosedRange<Int> = Int.min...Int.max) throws(ScenarioParseError) -> Int? {
        guard let v = value(name) else { return nil }
        guard case .scalar(let text, false, _) = v, let i = Int(text), range.contains(i) else {
            throw error(v, "'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound), got \(v.kindDescription)")
        }
        return i
    }

    mutating func bool(_ name: String) throws(ScenarioParseError) -> Bool? {
        guard let v = value(name) else { return nil }
        guard case .scalar(let text, false, _) = v, text == "true" || text == "false" else {
            throw error(v, "'\(name)' must be true or false, got \(v.kindDescription)")
        }
        return text == "true"
    }

    mutating func stringList(_ name: String) throws(ScenarioParseError) -> [String]? {
        guard let v = value(name) else { return nil }
        if case .scalar(let text, _, _) = v { return [text] }
        guard case .sequence(let items, _) = v else {
            throw error(v, "'\(name)' must be a list of strings, got \(v.kindDescription)")
        }
        var out: [String] = []
        for item in items {
            guard case .scalar(let text, _, _) = item else {
                throw error(item, "'\(name)' must list strings, got \(item.kindDescription)")
            }
            out.append(text)
        }
        return out
    }

    /// A duration: `30s`, `1.5s`, `500ms`, `20m`, `2h`, or a number of seconds.
    mutating func duration(_ name: String, allowNegative: Bool = false) throws(ScenarioParseError) -> Int64? {
        guard let v = value(name) else { return nil }
        guard let ms = Self.millis(v), allowNegative || ms >= 0 else {
            throw error(v, "'\(name)' must be a duration such as 30s, 500ms, 20m or 1h"
                        + (allowNegative ? "" : " (0 or more)") + ", got \(v.kindDescription)")
        }
        return ms
    }

    static func millis(_ node: YAMLNode) -> Int64? {
        guard case .scalar(let raw, _, _) = node else { return nil }
        let text = raw.trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        // At most 100 years either way: enough for any rule, and far from Int64's limits.
        func bounded(_ ms: Double) -> Int64? {
            guard ms.isFinite, abs(ms) <= 3.2e12 else { return nil }
            return Int64(ms.rounded())
        }
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            guard let n = Double(text.dropLast(suffix.count)) else { return nil }
            return bounded(n * factor)
        }
        guard let n = Double(text) else { return nil }
        return bounded(n * 1000)
    }

    /// Refuses keys nobody asked for, naming the allowed ones.
    func finish() throws(ScenarioParseError) {
        for (key, _) in pairs {
            guard let name = key.scalarText, known.contains(name) else {
                let suggestion = known.min { Self.distance($0, key.scalarText ?? "") < Self.distance($1, key.scalarText ?? "") }
                var message = "unknown key '\(key.scalarText ?? "?")' in \(context)"
                if let suggestion, Self.distance(suggestion, key.scalarText ?? "") <= 2 {
                    message += " (did you mean '\(suggestion)'?)"
                }
                message += "; expected one of: " + known.joined(separator: ", ")
                throw error(key, message)
            }
        }
    }

    /// Edit distance, for "did you mean".
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
