/// The command line cannot be run as written; the process exits with `ExitCode.usage` (64).
///
/// A struct with a private code, not a public enum, so new kinds of mistakes can be added without breaking anyone
/// who switches over them (the `HTTPClientError` pattern). Every error names the argument at fault when there is one,
/// because "expected an integer" is useless on a fifteen-flag CI command line without "argument 7".
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case unknownOption
        case missingValue
        case missingOption
        case unexpectedValue
        case unexpectedArgument
        case invalidValue
        case unknownSubcommand
        case missingSubcommand
        case invalidCombination
    }

    private var code: Code
    /// The offending argument; its text may join an option and its separate value (`--production-port x`).
    public private(set) var argument: ArgumentCursor.Argument?
    /// What was wrong, without the argument prefix.
    public private(set) var message: String

    private init(_ code: Code, _ argument: ArgumentCursor.Argument?, _ message: String) {
        self.code = code
        self.argument = argument
        self.message = message
    }

    /// `argument 3 '--production-port x': expected an integer from 0 to 65535`.
    public var description: String {
        guard let argument else { return message }
        return "\(argument): \(message)"
    }

    /// The kind of mistake with no payload, stable enough for a metrics label or a test.
    public var shortDescription: String { "UsageError.\(code.rawValue)" }

    /// An option no declaration matches.
    ///
    /// - Parameters:
    ///   - argument: The option as typed.
    ///   - suggestion: The nearest declared spelling, if one is close enough to be a typo.
    public static func unknownOption(_ argument: ArgumentCursor.Argument, suggestion: String?) -> UsageError {
        UsageError(.unknownOption, argument, "unknown option" + didYouMean(suggestion))
    }

    /// A value-taking option at the end of the line, or followed by another option.
    ///
    /// - Parameters:
    ///   - argument: The option as typed.
    ///   - option: Its declaration, to name the expected value.
    public static func missingValue(_ argument: ArgumentCursor.Argument, for option: OptionDeclaration) -> UsageError {
        let valueName = if case .value(let name) = option.kind { name } else { "value" }
        return UsageError(.missingValue, argument, "missing value <\(valueName)> for '\(option.spelling)'")
    }

    /// A required option that is absent from the line.
    ///
    /// - Parameter option: Its declaration, to show it as typed with its value, e.g. `--device-token <hex>`.
    public static func missingOption(_ option: OptionDeclaration) -> UsageError {
        UsageError(.missingOption, nil, "missing required option '\(option.synopsis)'")
    }

    /// A flag written with `=value`.
    ///
    /// - Parameters:
    ///   - argument: The flag as typed.
    ///   - option: Its declaration, to name it in the message.
    public static func unexpectedValue(_ argument: ArgumentCursor.Argument, for option: OptionDeclaration) -> UsageError
    {
        UsageError(.unexpectedValue, argument, "'\(option.spelling)' is a flag and takes no value")
    }

    /// An operand where the command takes none.
    ///
    /// - Parameter argument: The operand as typed.
    public static func unexpectedArgument(_ argument: ArgumentCursor.Argument) -> UsageError {
        UsageError(.unexpectedArgument, argument, "unexpected argument")
    }

    /// A value that does not convert or is out of range.
    ///
    /// - Parameters:
    ///   - argument: The option and its value as typed.
    ///   - expected: What would have been accepted, e.g. "an integer from 0 to 65535".
    public static func invalidValue(_ argument: ArgumentCursor.Argument, expected: String) -> UsageError {
        UsageError(.invalidValue, argument, "expected \(expected)")
    }

    /// A word where a subcommand was expected that names none.
    ///
    /// - Parameters:
    ///   - argument: The word as typed.
    ///   - suggestion: The nearest subcommand name, if one is close enough to be a typo.
    ///   - available: Every subcommand name, listed when there is no suggestion.
    public static func unknownSubcommand(
        _ argument: ArgumentCursor.Argument,
        suggestion: String?,
        available: [String]
    ) -> UsageError {
        let hint =
            suggestion != nil ? didYouMean(suggestion) : " (expected one of: \(available.joined(separator: ", ")))"
        return UsageError(.unknownSubcommand, argument, "unknown subcommand" + hint)
    }

    /// A command that only groups subcommands was run without one.
    ///
    /// - Parameter available: Every subcommand name.
    public static func missingSubcommand(available: [String]) -> UsageError {
        UsageError(
            .missingSubcommand,
            nil,
            "missing subcommand (expected one of: \(available.joined(separator: ", ")))"
        )
    }

    /// Values that are each valid but not together; raised from `Command.validate()`.
    ///
    /// - Parameters:
    ///   - message: What is wrong with the combination.
    ///   - argument: The argument to blame, usually the later of the conflicting pair.
    public static func invalidCombination(_ message: String, argument: ArgumentCursor.Argument?) -> UsageError {
        UsageError(.invalidCombination, argument, message)
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        guard let suggestion else { return "" }
        return "; did you mean '\(suggestion)'?"
    }
}
