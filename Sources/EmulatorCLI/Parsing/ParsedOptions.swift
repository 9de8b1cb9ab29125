/// The options found on a command line, each still tied to the argument it came from.
///
/// Conversions live here rather than in the tokenizer so each command states its own ranges, while every failure
/// still names the argument ("argument 3 '--production-port x'"). When an option repeats, the last occurrence wins,
/// so a script can append an override to a shared command line.
public struct ParsedOptions: Sendable {
    /// One option as it appeared.
    public struct Occurrence: Sendable, Hashable {
        /// The declaration it matched.
        public var option: OptionDeclaration
        /// The option (joined with its separate value, if any) and the option's index.
        public var argument: ArgumentCursor.Argument
        /// The value; nil for flags.
        public var value: String?
    }

    /// Every option in command-line order.
    public internal(set) var occurrences: [Occurrence] = []
    /// Non-option arguments, for commands that accept them.
    public internal(set) var operands: [ArgumentCursor.Argument] = []

    /// The last occurrence of `option`, if any.
    ///
    /// - Parameter option: The declaration to look up.
    public func last(_ option: OptionDeclaration) -> Occurrence? {
        occurrences.last { $0.option == option }
    }

    /// Every occurrence of `option` in command-line order, for options that may repeat (`-H`).
    ///
    /// - Parameter option: The declaration to look up.
    public func all(_ option: OptionDeclaration) -> [Occurrence] {
        occurrences.filter { $0.option == option }
    }

    /// Whether the flag (or option) appeared at all.
    ///
    /// - Parameter option: The declaration to look up.
    public func flag(_ option: OptionDeclaration) -> Bool {
        last(option) != nil
    }

    /// The argument an option came from, for errors raised later in `validate()`.
    ///
    /// - Parameter option: The declaration to look up.
    public func argument(for option: OptionDeclaration) -> ArgumentCursor.Argument? {
        last(option)?.argument
    }

    /// The value converted by `convert`, or nil when the option is absent.
    ///
    /// - Parameters:
    ///   - option: The declaration to look up.
    ///   - expected: What an acceptable value looks like, completing "expected …".
    ///   - convert: Returns nil to reject the text.
    public func value<T>(
        _ option: OptionDeclaration,
        expected: String,
        _ convert: (String) -> T?
    ) throws(UsageError) -> T? {
        guard let occurrence = last(option), let text = occurrence.value else { return nil }
        guard let converted = convert(text) else {
            throw .invalidValue(occurrence.argument, expected: expected)
        }
        return converted
    }

    /// The text of a value; empty text (`--host=`) is rejected since no option here means anything by it.
    ///
    /// - Parameter option: The declaration to look up.
    public func string(_ option: OptionDeclaration) throws(UsageError) -> String? {
        try value(option, expected: "a non-empty value") { $0.isEmpty ? nil : $0 }
    }

    /// One of a fixed set of words, matched exactly; the error lists them all.
    ///
    /// - Parameters:
    ///   - option: The declaration to look up.
    ///   - choices: Each accepted word with its meaning, in the order the error lists them.
    public func choice<T>(_ option: OptionDeclaration, _ choices: [(String, T)]) throws(UsageError) -> T? {
        let words = choices.map(\.0)
        let quoted = words.map { "'\($0)'" }
        let expected = quoted.count == 2 ? "\(quoted[0]) or \(quoted[1])" : "one of " + quoted.joined(separator: ", ")
        return try value(option, expected: expected) { text in choices.first { $0.0 == text }?.1 }
    }

    /// A decimal integer within `range`.
    ///
    /// - Parameters:
    ///   - option: The declaration to look up.
    ///   - range: Accepted values, spelled out in the error.
    public func integer(_ option: OptionDeclaration, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        let expected =
            range.upperBound == Int.max
            ? "an integer of at least \(range.lowerBound)"
            : "an integer from \(range.lowerBound) to \(range.upperBound)"
        return try value(option, expected: expected) { text in
            // Int(_:) accepts a leading "+", which no user means on purpose; digits only keeps ports honest.
            guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) || text.hasPrefix("-"),
                let number = Int(text), range.contains(number)
            else { return nil }
            return number
        }
    }

    /// A finite, non-negative number of seconds, fractions allowed (`0.5`).
    ///
    /// - Parameters:
    ///   - option: The declaration to look up.
    ///   - allowingZero: Whether 0 is meaningful (for example "never" or "no grace").
    public func seconds(_ option: OptionDeclaration, allowingZero: Bool) throws(UsageError) -> Double? {
        let expected = allowingZero ? "a number of seconds, 0 or more" : "a number of seconds greater than 0"
        return try value(option, expected: expected) { text in
            guard let seconds = Double(text), seconds.isFinite, allowingZero ? seconds >= 0 : seconds > 0 else {
                return nil
            }
            return seconds
        }
    }
}
