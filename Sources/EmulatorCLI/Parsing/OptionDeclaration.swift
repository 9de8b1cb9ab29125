/// One option a command accepts, described as data.
///
/// Declaring options as values rather than parsing them ad hoc is what lets one list drive the tokenizer (unknown
/// option? missing value?), the generated `--help` and the "did you mean" suggestions, so the three cannot disagree.
/// It plays the role of swift-argument-parser's `@Option`/`@Flag` property wrappers without their reflection.
public struct OptionDeclaration: Sendable, Hashable {
    /// Whether the option stands alone or takes the next argument (or the text after `=`) as its value.
    public enum Kind: Sendable, Hashable {
        /// Present or absent; `--flag=value` is a usage error.
        case flag
        /// Takes a value, shown in help as `<valueName>`.
        case value(valueName: String)
    }

    /// The long name without its dashes, e.g. `production-port`.
    public var name: String
    /// An optional one-letter alias, e.g. `o` for `-o`.
    public var shortName: Character?
    /// Flag or value-taking option.
    public var kind: Kind
    /// One sentence for `--help`.
    public var help: String
    /// The default as shown in help; nil hides the "(default: …)" suffix for options whose absence means "none".
    public var defaultDescription: String?

    /// - Parameters:
    ///   - name: Long name without dashes.
    ///   - shortName: Optional one-letter alias.
    ///   - kind: Flag or value-taking option.
    ///   - help: One sentence for `--help`.
    ///   - defaultDescription: The default as shown in help, or nil for none.
    public init(name: String, shortName: Character? = nil, kind: Kind, help: String, defaultDescription: String? = nil)
    {
        self.name = name
        self.shortName = shortName
        self.kind = kind
        self.help = help
        self.defaultDescription = defaultDescription
    }

    /// An option that takes a value.
    ///
    /// - Parameters:
    ///   - name: Long name without dashes.
    ///   - shortName: Optional one-letter alias.
    ///   - valueName: What help shows in angle brackets, e.g. `port`.
    ///   - help: One sentence for `--help`.
    ///   - defaultValue: The default as shown in help; pass the real default's description so help cannot drift.
    public static func value(
        _ name: String,
        shortName: Character? = nil,
        valueName: String,
        help: String,
        default defaultValue: String? = nil
    ) -> OptionDeclaration {
        OptionDeclaration(
            name: name,
            shortName: shortName,
            kind: .value(valueName: valueName),
            help: help,
            defaultDescription: defaultValue
        )
    }

    /// An option that is either present or absent.
    ///
    /// - Parameters:
    ///   - name: Long name without dashes.
    ///   - shortName: Optional one-letter alias.
    ///   - help: One sentence for `--help`.
    public static func flag(_ name: String, shortName: Character? = nil, help: String) -> OptionDeclaration {
        OptionDeclaration(name: name, shortName: shortName, kind: .flag, help: help)
    }

    /// The spelling used in messages and help, always the long form.
    public var spelling: String { "--\(name)" }

    /// Whether the option consumes a value.
    public var takesValue: Bool {
        if case .value = kind { return true }
        return false
    }

    /// `--name <value>` as help and usage lines show it.
    var synopsis: String {
        switch kind {
        case .flag: spelling
        case .value(let valueName): "\(spelling) <\(valueName)>"
        }
    }

    /// Built in to every command rather than declared, so no command can forget it or give it another meaning.
    static let helpFlag = OptionDeclaration.flag("help", shortName: "h", help: "Show help information.")
}
