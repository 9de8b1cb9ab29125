import Foundation

/// Scenario values that go to the emulator as JSON (device specs, payloads, control bodies).
extension YAMLNode {
    /// The node as a `JSONSerialization` value. Plain scalars get YAML's core types (null, true/false,
    /// integers, floats); quoted scalars stay strings, so `"10"` is a string and `10` a number.
    public var jsonValue: Any {
        switch self {
        case .scalar(let text, let quoted, _):
            if quoted { return text }
            if YAMLNode.isNull(text) { return NSNull() }
            if text == "true" { return true }
            if text == "false" { return false }
            if let i = Int64(text) { return NSNumber(value: i) }
            if let d = Double(text), text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), d.isFinite {
                return NSNumber(value: d)
            }
            return text
        case .sequence(let items, _):
            return items.map(\.jsonValue)
        case .mapping(let pairs, _):
            var object: [String: Any] = [:]
            for (key, value) in pairs { object[key.scalarText ?? ""] = value.jsonValue }
            return object
        }
    }

    /// Compact JSON bytes of the node (keys sorted, so the bytes are stable).
    public var jsonBytes: [UInt8] {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        return Array((try? JSONSerialization.data(withJSONObject: jsonValue, options: options)) ?? Data())
    }

    /// The text of a scalar (nil for lists and mappings).
    public var scalarText: String? {
        if case .scalar(let text, _, _) = self { return text }
        return nil
    }

    /// The value under `key` in a mapping.
    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let pairs, _) = self else { return nil }
        return pairs.first { $0.key.scalarText == key }?.value
    }

    /// The node a field path such as `apps[0].delegate.presentation[1]` names (for blaming a control-API
    /// validation error on a line), or the deepest node found on the way.
    public func node(at path: String) -> YAMLNode {
        var current = self
        for part in path.split(separator: ".") {
            var name = Substring(part)
            var indices: [Int] = []
            while let open = name.lastIndex(of: "["), name.hasSuffix("]"),
                  let i = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) {
                indices.insert(i, at: 0)
                name = name[..<open]
            }
            guard let next = current[String(name)] else { return current }
            current = next
            for i in indices {
                guard case .sequence(let items, _) = current, i < items.count else { return current }
                current = items[i]
            }
        }
        return current
    }
}
