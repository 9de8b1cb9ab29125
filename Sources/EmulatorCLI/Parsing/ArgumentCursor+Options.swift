extension ArgumentCursor {
    /// Consumes the rest of the line as options from `declarations`, checking shape but not values.
    ///
    /// Shape errors (unknown option, missing value, stray operand) are caught here, once, for every command; value
    /// errors are raised later by `ParsedOptions` conversions, which still know each value's argument index.
    /// Accepted forms: `--name value`, `--name=value`, `-n value`, `-nvalue`, and `--` to end options.
    ///
    /// - Parameters:
    ///   - declarations: Every option the command accepts.
    ///   - allowingOperands: Whether non-option arguments are collected rather than rejected.
    /// - Returns: Each occurrence in order, plus the operands.
    public mutating func parseOptions(
        _ declarations: [OptionDeclaration],
        allowingOperands: Bool = false
    ) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        while let argument = next() {
            if argument.isTerminator {
                while let operand = next() {
                    guard allowingOperands else { throw .unexpectedArgument(operand) }
                    parsed.operands.append(operand)
                }
            } else if argument.text.hasPrefix("--") {
                parsed.occurrences.append(try parseLongOption(argument, declarations))
            } else if argument.isOption {
                parsed.occurrences.append(try parseShortOption(argument, declarations))
            } else if allowingOperands {
                parsed.operands.append(argument)
            } else {
                throw .unexpectedArgument(argument)
            }
        }
        return parsed
    }

    private mutating func parseLongOption(
        _ argument: Argument,
        _ declarations: [OptionDeclaration]
    ) throws(UsageError) -> ParsedOptions.Occurrence {
        let body = argument.text.dropFirst(2)
        let name: Substring
        let inlineValue: Substring?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = body[body.index(after: equals)...]
        } else {
            name = body
            inlineValue = nil
        }
        guard let option = declarations.first(where: { $0.name == name }) else {
            let spellings = declarations.map(\.spelling) + [OptionDeclaration.helpFlag.spelling]
            let typed = "--" + name
            throw .unknownOption(argument, suggestion: Suggestion.nearest(to: typed, among: spellings))
        }
        guard option.takesValue else {
            if inlineValue != nil { throw .unexpectedValue(argument, for: option) }
            return ParsedOptions.Occurrence(option: option, argument: argument, value: nil)
        }
        if let inlineValue {
            return ParsedOptions.Occurrence(option: option, argument: argument, value: String(inlineValue))
        }
        return try takeSeparateValue(for: option, after: argument)
    }

    private mutating func parseShortOption(
        _ argument: Argument,
        _ declarations: [OptionDeclaration]
    ) throws(UsageError) -> ParsedOptions.Occurrence {
        let letters = argument.text.dropFirst()
        guard let letter = letters.first, let option = declarations.first(where: { $0.shortName == letter }) else {
            throw .unknownOption(argument, suggestion: nil)
        }
        let attached = letters.dropFirst()
        guard option.takesValue else {
            if !attached.isEmpty { throw .unknownOption(argument, suggestion: nil) }
            return ParsedOptions.Occurrence(option: option, argument: argument, value: nil)
        }
        if !attached.isEmpty {
            return ParsedOptions.Occurrence(option: option, argument: argument, value: String(attached))
        }
        return try takeSeparateValue(for: option, after: argument)
    }

    /// A following option is treated as a missing value rather than swallowed, so `--host --sandbox-port 1` fails
    /// loudly instead of binding to a host named "--sandbox-port".
    private mutating func takeSeparateValue(
        for option: OptionDeclaration,
        after argument: Argument
    ) throws(UsageError) -> ParsedOptions.Occurrence {
        guard let value = peek(), !value.isOption, !value.isTerminator else {
            throw .missingValue(argument, for: option)
        }
        _ = next()
        let joined = Argument(index: argument.index, text: "\(argument.text) \(value.text)")
        return ParsedOptions.Occurrence(option: option, argument: joined, value: value.text)
    }
}
