import Foundation

/// A command ran but could not do its work: the runner prints `error: <description>` and exits 1.
///
/// For failures found while running (an unreadable key file, a refused connection), as opposed to `UsageError`,
/// which is raised before anything runs and exits 64. One message, written for the person at the terminal: what
/// failed, on which file or address, and what to do about it when there is an obvious fix.
public struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole message, without the `error: ` prefix the runner adds.
    public var message: String

    /// - Parameter message: What failed and, when there is one, the fix.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension CommandFailure {
    /// Fails naming `path` as `role` (plus `hint`, e.g. how to get one) unless the file can be read: checked before
    /// the file is used, so the message names it instead of a TLS library's error, and before anything is started.
    static func requireReadable(_ path: String, as role: String, hint: String = "") throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure("cannot read the \(role) '\(path)'\(hint)")
        }
    }
}
