/// Walks from the root command to the one named on the line, then runs parse → validate → run.
///
/// All exits go through here so the contract is in one place: help and version print to stdout and exit 0, usage
/// errors print `error: …` plus a pointer to the right `--help` on stderr and exit 64, and anything a command throws
/// while running prints `error: …` and exits 1.
struct CommandRunner: Sendable {
    /// The executable's command; its subcommands are the first word on the line.
    let root: any Command.Type

    /// Runs one command line to completion.
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - context: Output streams and the stop signal.
    func run(_ arguments: [String], context: CommandContext) async -> ExitCode {
        var cursor = ArgumentCursor(arguments)
        var path = [root.configuration.name]
        let command: any Command
        do throws(UsageError) {
            let selected = try selectCommand(&cursor, path: &path)
            if let helpPath = try helpRequest(&cursor, selected: selected, path: path) {
                context.output.write(HelpFormatter.help(for: helpPath.command, path: helpPath.path))
                return .success
            }
            command = try selected.init(parsing: &cursor)
            if let leftover = cursor.next() { throw .unexpectedArgument(leftover) }
            try command.validate()
        } catch {
            context.errorOutput.writeLine("error: \(error)")
            context.errorOutput.writeLine("see '\(path.joined(separator: " ")) --help'")
            return .usage
        }
        do {
            return try await command.run(context: context)
        } catch {
            context.errorOutput.writeLine("error: \(error)")
            return .failure
        }
    }

    /// Descends through subcommand words, leaving the cursor at the selected command's own arguments.
    private func selectCommand(
        _ cursor: inout ArgumentCursor,
        path: inout [String]
    ) throws(UsageError) -> any Command.Type {
        var command = root
        while !command.configuration.subcommands.isEmpty {
            let configuration = command.configuration
            guard let next = cursor.peek(), !next.isOption, !next.isTerminator else {
                if let fallback = configuration.defaultSubcommand, !startsWithOwnOption(cursor, configuration) {
                    command = fallback
                    path.append(fallback.configuration.name)
                }
                return command
            }
            // `help` as a word is resolved by `helpRequest`, unless a command really is named that.
            if next.text == "help" && subcommand(named: "help", in: configuration) == nil { return command }
            guard let subcommand = subcommand(named: next.text, in: configuration) else {
                let names = configuration.subcommands.map { $0.configuration.name }
                throw .unknownSubcommand(
                    next,
                    suggestion: Suggestion.nearest(to: next.text, among: names),
                    available: names
                )
            }
            _ = cursor.next()
            command = subcommand
            path.append(subcommand.configuration.name)
        }
        return command
    }

    /// The command whose help to print, for `--help`/`-h` anywhere before `--`, or `help [<subcommand>…]`.
    ///
    /// `--help` wins over every other mistake on the line, as in argument-parser: someone asking for help while
    /// holding a broken command line should get the help, not the error.
    private func helpRequest(
        _ cursor: inout ArgumentCursor,
        selected: any Command.Type,
        path: [String]
    ) throws(UsageError) -> (command: any Command.Type, path: [String])? {
        if cursor.peek()?.text == "help" && !selected.configuration.subcommands.isEmpty {
            _ = cursor.next()
            var command = selected
            var helpPath = path
            while let word = cursor.next() {
                if word.isOption { continue }
                let names = command.configuration.subcommands.map { $0.configuration.name }
                guard let subcommand = subcommand(named: word.text, in: command.configuration) else {
                    throw .unknownSubcommand(
                        word,
                        suggestion: Suggestion.nearest(to: word.text, among: names),
                        available: names
                    )
                }
                command = subcommand
                helpPath.append(subcommand.configuration.name)
            }
            return (command, helpPath)
        }
        for argument in cursor.remaining {
            if argument.isTerminator { break }
            if argument.text == "--help" || argument.text == "-h" { return (selected, path) }
        }
        return nil
    }

    private func subcommand(named name: String, in configuration: CommandConfiguration) -> (any Command.Type)? {
        configuration.subcommands.first { $0.configuration.name == name }
    }

    /// With a default subcommand, the parent's own options (`--version`) still belong to the parent.
    private func startsWithOwnOption(_ cursor: ArgumentCursor, _ configuration: CommandConfiguration) -> Bool {
        guard let next = cursor.peek(), next.text.hasPrefix("--") else { return false }
        let name = next.text.dropFirst(2).prefix { $0 != "=" }
        return configuration.options.contains { $0.name == name }
    }
}
