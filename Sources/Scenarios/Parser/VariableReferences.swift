/// The `${name}` references of a scenario, checked before it runs.
///
/// A reference to a name no earlier step saves is a typo or a step out of order; at run time it would be
/// sent literally (a push to the token `${tokn}`) and fail somewhere far from the cause, so the file is
/// refused instead, at the reference's line. The built-in forms (`${now}`, `${nowSeconds+N}`,
/// `${scenarioDir}`, `${seal:KEY:text}`, `${c*N}`) are always defined.
enum VariableReferences {
    static let builtins: Set<String> = ["now", "nowSeconds", "scenarioDir"]

    /// The saved-value names referenced in `text` (the built-in forms with `+`, `:` or `*` never match).
    static func names(in text: String) -> [String] {
        guard text.contains("${") else { return [] }
        return text.matches(of: /\$\{([A-Za-z_][A-Za-z0-9_.\-]*)\}/).map { String($0.output.1) }
            .filter { $0.wholeMatch(of: /nowSeconds[+-]\d+/) == nil }
    }

    /// The name when `text` is one reference and nothing else (`${token}`), which then takes the saved value's type.
    static func wholeReference(_ text: String) -> String? {
        text.wholeMatch(of: /\$\{([A-Za-z_][A-Za-z0-9_.\-]*)\}/).map { String($0.output.1) }
    }

    /// Checks the steps in order: a step may use what earlier steps saved, and its own `expect` may also use
    /// what the step itself saves (a push's apns-id, a call's token).
    static func check(steps: [YAMLNode], _ parsed: [Step], devices: YAMLNode?, file: String) throws(ScenarioParseError) {
        if let devices { try check(devices, defined: builtins, file: file) }
        var defined = builtins
        for (node, step) in zip(steps, parsed) {
            let own = Set([step.save].compactMap { $0 } + step.capture.map(\.name))
            guard case .mapping(let pairs, _) = node else { continue }
            for pair in pairs where pair.key.scalarText != "note" {  // a note is never substituted
                let isExpect = pair.key.scalarText == "expect"
                try check(pair.value, defined: isExpect ? defined.union(own) : defined, file: file)
            }
            defined.formUnion(own)
        }
    }

    private static func check(_ node: YAMLNode, defined: Set<String>, file: String) throws(ScenarioParseError) {
        switch node {
        case .scalar(let text, _, let mark):
            for name in names(in: text) where !defined.contains(name) {
                let saved = defined.subtracting(builtins).sorted()
                var message = "undefined variable '${\(name)}': no earlier step saves it"
                if let close = defined.sorted().first(where: { NodeReader.distance($0, name) <= 2 }) {
                    message += " (did you mean '${\(close)}'?)"
                }
                message += saved.isEmpty
                    ? "; nothing is saved before this point (a step keeps a value with 'save:' or 'capture:')"
                    : "; saved before this point: " + saved.joined(separator: ", ")
                throw ScenarioParseError(file: file, mark: mark, message)
            }
        case .sequence(let items, _):
            for item in items { try check(item, defined: defined, file: file) }
        case .mapping(let pairs, _):
            for pair in pairs { try check(pair.value, defined: defined, file: file) }
        }
    }
}
