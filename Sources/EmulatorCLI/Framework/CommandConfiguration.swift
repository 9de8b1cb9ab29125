/// What a command is called, what it says about itself, and what it accepts: everything help is generated from.
///
/// Options sit here, beside the name and abstract, so help, the tokenizer and suggestions read one list; a command
/// cannot accept a flag its help forgets to mention.
public struct CommandConfiguration: Sendable {
    /// The word that selects the command (the executable's name for the root).
    public var name: String
    /// One line for the parent's subcommand list and the top of `--help`.
    public var abstract: String
    /// Paragraphs shown after the abstract in the command's own `--help`.
    public var discussion: String
    /// Every option the command accepts, in the order help lists them.
    public var options: [OptionDeclaration]
    /// Commands selected by the next word; a command with subcommands only dispatches unless it has a default.
    public var subcommands: [any Command.Type]
    /// The subcommand run when none is named (nil: naming one is required).
    public var defaultSubcommand: (any Command.Type)?

    /// - Parameters:
    ///   - name: The word that selects the command.
    ///   - abstract: One line for lists and the top of help.
    ///   - discussion: Longer help text, shown only in the command's own help.
    ///   - options: Every option the command accepts, in help order.
    ///   - subcommands: Commands selected by the next word.
    ///   - defaultSubcommand: The subcommand run when none is named.
    public init(
        name: String,
        abstract: String = "",
        discussion: String = "",
        options: [OptionDeclaration] = [],
        subcommands: [any Command.Type] = [],
        defaultSubcommand: (any Command.Type)? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
    }
}
