/// The command line after the program name, read left to right, with every argument's position kept.
///
/// Positions survive the whole parse so a `UsageError` raised long after tokenizing (say, while converting a port)
/// can still point at the exact argument the user typed: "argument 3 '--production-port x'". This mirrors
/// swift-argument-parser's input origins, without its general split-and-rejoin machinery we do not need.
public struct ArgumentCursor: Sendable {
    /// One argument as typed, with its 1-based position after the program name (the shell's `$1`, `$2`, …).
    public struct Argument: Sendable, Hashable, CustomStringConvertible {
        /// 1-based position, so messages match what a user counts on their own command line.
        public var index: Int
        /// The text exactly as received from the shell.
        public var text: String

        /// - Parameters:
        ///   - index: 1-based position after the program name.
        ///   - text: The argument as typed.
        public init(index: Int, text: String) {
            self.index = index
            self.text = text
        }

        public var description: String { "argument \(index) '\(text)'" }

        /// Whether the argument looks like an option; a lone `-` is an operand by Unix convention (stdin).
        var isOption: Bool { text.hasPrefix("-") && text != "-" }

        /// `--` ends option parsing so operands that start with a dash (a script's own flags) pass through.
        var isTerminator: Bool { text == "--" }
    }

    /// Every argument, including those already consumed, so errors can quote neighbours.
    public let arguments: [Argument]
    /// Offset into `arguments` of the next unread argument.
    public private(set) var position: Int

    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - firstIndex: Position reported for `arguments[0]`; only tests feeding a slice need anything but 1.
    public init(_ arguments: [String], firstIndex: Int = 1) {
        self.arguments = arguments.enumerated().map { Argument(index: firstIndex + $0.offset, text: $0.element) }
        self.position = 0
    }

    /// Whether every argument has been consumed.
    public var isAtEnd: Bool { position >= arguments.count }

    /// The arguments not yet consumed.
    public var remaining: ArraySlice<Argument> { arguments[position...] }

    /// The next argument without consuming it.
    public func peek() -> Argument? {
        isAtEnd ? nil : arguments[position]
    }

    /// Consumes and returns the next argument.
    public mutating func next() -> Argument? {
        guard let argument = peek() else { return nil }
        position += 1
        return argument
    }
}
