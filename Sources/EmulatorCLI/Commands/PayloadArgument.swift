import Foundation

/// A `--payload` value (send, bench): the text itself, or `@PATH` to read a file (`@-`: standard input).
///
/// Files are read when the command runs rather than when it is parsed, so a missing one is a failure (exit 1)
/// naming the file, not a usage error (64), like every other file these commands read.
enum PayloadArgument: Sendable, Equatable {
    /// `--payload TEXT`, sent as is (empty is allowed, to provoke PayloadEmpty).
    case text(String)
    /// `--payload @PATH`; `@-` reads standard input.
    case file(String)

    /// `option`'s value in `options`, if given; `@` alone is a usage error.
    static func parse(_ options: ParsedOptions, _ option: OptionDeclaration) throws(UsageError) -> PayloadArgument? {
        let payload = try options.value(option, expected: "JSON text or @FILE") { text in
            text.hasPrefix("@") ? PayloadArgument.file(String(text.dropFirst())) : PayloadArgument.text(text)
        }
        if case .file("")? = payload {
            throw .invalidValue(options.argument(for: option)!, expected: "a file name after '@'")
        }
        return payload
    }

    /// The body's bytes, a file read now.
    func bytes() throws -> [UInt8] {
        switch self {
        case .text(let text):
            return Array(text.utf8)
        case .file("-"):
            return Array(FileHandle.standardInput.readDataToEndOfFile())
        case .file(let path):
            do {
                return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw CommandFailure("cannot read the payload file '\(path)': \(FileErrorReason.text(error))")
            }
        }
    }
}
