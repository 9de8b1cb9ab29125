/// Renders `--help` from a `CommandConfiguration`, in swift-argument-parser's layout.
///
/// Generated, never hand-written, so the help cannot list a flag the parser rejects or omit a default. Tests pin
/// the output; a change here shows up as a reviewed diff rather than a surprise in someone's CI log.
enum HelpFormatter {
    /// Help lines wrap here; 80 columns reads well in terminals and in CI logs alike.
    static let width = 80
    /// Where option and subcommand descriptions start (two spaces of indent plus a 24-column label).
    static let labelColumn = 26
    /// Joins words that must not be split across lines.
    private static let noBreakSpace: Character = "\u{00A0}"

    /// The full help for one command.
    ///
    /// - Parameters:
    ///   - command: The command to describe.
    ///   - path: Its words from the executable down, e.g. `["apns-emulator", "serve"]`.
    static func help(for command: any Command.Type, path: [String]) -> String {
        let configuration = command.configuration
        var sections: [String] = []
        if !configuration.abstract.isEmpty {
            sections.append(wrap("OVERVIEW: " + configuration.abstract, indent: 0))
        }
        if !configuration.discussion.isEmpty {
            sections.append(discussion(configuration.discussion))
        }
        sections.append("USAGE: " + usage(for: command, path: path))
        let options = configuration.options + [OptionDeclaration.helpFlag]
        sections.append(
            (["OPTIONS:"] + options.map { row(label: label(for: $0), text: text(for: $0)) }).joined(separator: "\n")
        )
        if !configuration.subcommands.isEmpty {
            let rows = configuration.subcommands.map { subcommand in
                let name = subcommand.configuration.name
                let isDefault = configuration.defaultSubcommand.map { $0.configuration.name == name } ?? false
                return row(label: name + (isDefault ? " (default)" : ""), text: subcommand.configuration.abstract)
            }
            let footer = "  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help."
            sections.append((["SUBCOMMANDS:"] + rows + ["", footer]).joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// The one-line synopsis; long option lists collapse to `[<options>]` so the line stays readable.
    static func usage(for command: any Command.Type, path: [String]) -> String {
        let configuration = command.configuration
        var words = path
        if configuration.options.count > 4 {
            words.append("[<options>]")
        } else {
            words += configuration.options.map { "[\($0.synopsis)]" }
        }
        if !configuration.subcommands.isEmpty {
            words.append(configuration.defaultSubcommand == nil ? "<subcommand>" : "[<subcommand>]")
        }
        return words.joined(separator: " ")
    }

    private static func label(for option: OptionDeclaration) -> String {
        guard let shortName = option.shortName else { return option.synopsis }
        return "-\(shortName), \(option.synopsis)"
    }

    private static func text(for option: OptionDeclaration) -> String {
        guard let defaultDescription = option.defaultDescription else { return option.help }
        // A no-break space keeps "(default: 2197)" on one line; `wrap` turns it back into a plain space.
        return "\(option.help) (default:\(noBreakSpace)\(defaultDescription))"
    }

    /// A label that does not fit its column gets the description on the next line, as argument-parser does.
    private static func row(label: String, text: String) -> String {
        let indentedLabel = "  " + label
        let body = wrap(text, indent: labelColumn).dropFirst(labelColumn)
        guard indentedLabel.count + 2 <= labelColumn else {
            return indentedLabel + "\n" + String(repeating: " ", count: labelColumn) + body
        }
        return indentedLabel.padding(toLength: labelColumn) + body
    }

    /// Lines that start with a space are examples and stay exactly as written; the rest wrap.
    private static func discussion(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(" ") || line.isEmpty ? String(line) : wrap(String(line), indent: 0)
        }.joined(separator: "\n")
    }

    /// Greedy word wrap; every line, the first included, starts with `indent` spaces.
    static func wrap(_ text: String, indent: Int) -> String {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && indent + current.count + 1 + word.count > width {
                lines.append(margin + current)
                current = String(word)
            } else {
                current += current.isEmpty ? String(word) : " " + word
            }
        }
        lines.append(margin + current)
        return lines.joined(separator: "\n").replacingOccurrences(of: noBreakSpace, with: " ")
    }
}

extension String {
    /// `replacingOccurrences(of:with:)` for one character, without Foundation.
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }

    /// Pads with spaces on the right; Foundation's `padding(toLength:withPad:startingAt:)` without Foundation.
    fileprivate func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
