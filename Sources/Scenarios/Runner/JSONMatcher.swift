import Foundation
import OpenSSLSupport
import VirtualDevices
import WireBytes

/// Matches an expected YAML value against what the emulator answered (a `JSONSerialization` value).
///
/// ### Rules
/// * A mapping matches an object that has at least those keys, each matching (a subset match: a scenario
///   names what matters and stays readable).
/// * A list matches an array of the same length, item by item.
/// * A scalar matches by text (`200` matches the number 200 and the string "200"); plain `null` (or
///   `<absent>`) matches a missing or null value; `<any>` matches any present value.
/// * A mapping with exactly one operator key checks that: `{contains: s}`, `{matches: regex}`,
///   `{oneOf: [..]}`, `{not: v}`, `{greaterThan: n}`, `{lessThan: n}`, `{greaterOrEqual: n}`,
///   `{lessOrEqual: n}`, `{length: n}` (`n` may be a saved `${value}`).
/// * `${name}` in a scalar is replaced by a saved value first.
struct JSONMatcher {
    let variables: [String: String]

    /// A mismatch: the path inside the value, what was expected, what was there.
    struct Mismatch: Error, Equatable {
        var path: String
        var expected: String
        var actual: String
        var mark: YAMLNode.Mark
    }

    static let operators: Set<String> = ["contains", "matches", "oneOf", "not", "greaterThan", "lessThan", "greaterOrEqual",
                                         "lessOrEqual", "length"]

    func match(_ expected: YAMLNode, _ actual: Any?, path: String = "") -> Mismatch? {
        switch expected {
        case .scalar(let raw, let quoted, let mark):
            let text = substitute(raw)
            if !quoted && (YAMLNode.isNull(raw) || raw == "<absent>") {
                return isAbsent(actual) ? nil : Mismatch(path: path, expected: "absent", actual: describe(actual), mark: mark)
            }
            if !quoted && raw == "<any>" {
                return isAbsent(actual) ? Mismatch(path: path, expected: "a value", actual: "absent", mark: mark) : nil
            }
            guard let actualText = scalarText(actual), actualText == text else {
                return Mismatch(path: path, expected: quote(text), actual: describe(actual), mark: mark)
            }
            return nil
        case .sequence(let items, let mark):
            guard let array = actual as? [Any] else {
                return Mismatch(path: path, expected: "a list of \(items.count)", actual: describe(actual), mark: mark)
            }
            guard array.count == items.count else {
                return Mismatch(path: path, expected: "\(items.count) items", actual: "\(array.count): \(describe(actual))",
                                mark: mark)
            }
            for (i, item) in items.enumerated() {
                if let m = match(item, array[i], path: "\(path)[\(i)]") { return m }
            }
            return nil
        case .mapping(let pairs, let mark):
            // An operator, unless the actual value is an object with a field of that name (`{length: 64}` on a
            // token record means its `length` field).
            if pairs.count == 1, let op = pairs[0].key.scalarText, Self.operators.contains(op),
               (actual as? [String: Any])?[op] == nil {
                return apply(op, pairs[0].value, actual, path: path, mark: mark)
            }
            guard let object = actual as? [String: Any] else {
                return Mismatch(path: path, expected: "an object", actual: describe(actual), mark: mark)
            }
            for (key, value) in pairs {
                let name = key.scalarText ?? ""
                if let m = match(value, object[name], path: path.isEmpty ? name : "\(path).\(name)") { return m }
            }
            return nil
        }
    }

    private func apply(_ op: String, _ operand: YAMLNode, _ actual: Any?, path: String, mark: YAMLNode.Mark) -> Mismatch? {
        let operandText = operand.scalarText.map(substitute) ?? ""
        func fail(_ expected: String) -> Mismatch { Mismatch(path: path, expected: expected, actual: describe(actual), mark: mark) }
        switch op {
        case "contains":
            if let s = scalarText(actual), s.contains(operandText) { return nil }
            if let a = actual as? [Any], a.contains(where: { match(operand, $0) == nil }) { return nil }
            return fail("something containing \(quote(operandText))")
        case "matches":
            guard let regex = try? Regex(operandText) else { return fail("a valid regular expression: \(operandText)") }
            if let s = scalarText(actual), (try? regex.wholeMatch(in: s)) != nil { return nil }
            return fail("text matching /\(operandText)/")
        case "oneOf":
            guard case .sequence(let options, _) = operand else { return fail("oneOf needs a list") }
            return options.contains { match($0, actual) == nil } ? nil
                : fail("one of " + options.map { quote($0.scalarText.map(substitute) ?? "…") }.joined(separator: ", "))
        case "not":
            return match(operand, actual) == nil ? fail("anything but \(quote(operandText))") : nil
        case "greaterThan", "lessThan", "greaterOrEqual", "lessOrEqual":
            let sign = ["greaterThan": ">", "lessThan": "<", "greaterOrEqual": "≥", "lessOrEqual": "≤"][op]!
            guard let a = scalarText(actual).flatMap(Double.init), let b = Double(operandText) else {
                return fail("a number \(sign) \(operandText)")
            }
            let holds = switch op {
            case "greaterThan": a > b
            case "lessThan": a < b
            case "greaterOrEqual": a >= b
            default: a <= b
            }
            return holds ? nil : fail("a number \(sign) \(operandText)")
        case "length":
            let count = (actual as? [Any])?.count ?? (actual as? [String: Any])?.count ?? scalarText(actual)?.count
            return count.map(String.init) == operandText ? nil : fail("length \(operandText)")
        default:
            return fail(op)
        }
    }

    /// `${name}` → a saved value; `${c*N}` → the character c repeated N times; `${now}` → the emulator's time in ms and `${nowSeconds}`,
    /// `${nowSeconds+3600}`, `${nowSeconds-60}` → its time in seconds, offset (for `apns-expiration`).
    func substitute(_ text: String) -> String {
        guard text.contains("${") else { return text }
        var out = text
        if out.contains("${nowSeconds"), let now = variables["now"].flatMap(Int64.init) {
            out = out.replacing(/\$\{nowSeconds(?:([+-])(\d+))?\}/) { match in
                let offset = Int64(match.output.2 ?? "0") ?? 0
                return String(now / 1000 + (match.output.1 == "-" ? -offset : offset))
            }
        }
        // `${seal:KEYHEX:text}`: the text sealed with AES-256-GCM, base64 (what a decrypting extension opens).
        out = out.replacing(/\$\{seal:([0-9a-fA-F]{64}):([^}]*)\}/) { match in
            guard let key = Hex.decode(String(match.output.1)),
                  let sealed = try? AESGCM.seal(Array(String(match.output.2).utf8), key: key) else { return "" }
            return Data(sealed).base64EncodedString()
        }
        // `${x*5000}`: one character repeated, for payloads of a given size.
        out = out.replacing(/\$\{(.)\*(\d{1,7})\}/) { match in
            String(repeating: String(match.output.1), count: Int(match.output.2) ?? 0)
        }
        for (name, value) in variables { out = out.replacingOccurrences(of: "${\(name)}", with: value) }
        return out
    }

    private func isAbsent(_ v: Any?) -> Bool { v == nil || v is NSNull }

    func scalarText(_ v: Any?) -> String? {
        switch v {
        case let s as String: return s
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return n.boolValue ? "true" : "false" }
            let d = n.doubleValue
            if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case let b as Bool: return b ? "true" : "false"
        default: return nil
        }
    }

    private func quote(_ s: String) -> String { s.contains(" ") || s.isEmpty ? "\"\(s)\"" : s }

    func describe(_ v: Any?) -> String {
        guard let v, !(v is NSNull) else { return "absent" }
        if let s = scalarText(v) { return quote(s) }
        guard JSONSerialization.isValidJSONObject(v),
              let data = try? JSONSerialization.data(withJSONObject: v, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "\(v)"
        }
        let text = String(decoding: data, as: UTF8.self)
        return text.count > 400 ? String(text.prefix(400)) + "…" : text
    }
}
