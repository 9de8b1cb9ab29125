/// Why the state file could not be used, naming the file and what the user can do about it.
///
/// The store never repairs or replaces a file it cannot read: it holds the user's keys and tokens, so the
/// decision to discard them is left to the user, with the way out spelled out in `description`.
public struct StateStoreError: Error, CustomStringConvertible {
    /// What went wrong, comparable without the payload.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadable, corrupt, newerSchema, writeFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file could not be opened or read (permissions, a folder in its place, I/O, a lock held too long).
        public static let unreadable = Code(.unreadable)
        /// The file is not an emulator state database: garbage, damaged pages, rows that do not decode, or
        /// another program's database.
        public static let corrupt = Code(.corrupt)
        /// A newer emulator wrote the file in a layout this one does not know.
        public static let newerSchema = Code(.newerSchema)
        /// A write failed; nothing of it was applied.
        public static let writeFailed = Code(.writeFailed)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The state file's path.
    public let file: String
    /// What SQLite (or the decoder) said.
    public let detail: String
    /// The error behind this one, when there is one.
    public let underlying: (any Error)?

    package init(_ code: Code, file: String, detail: String, underlying: (any Error)? = nil) {
        self.code = code
        self.file = file
        self.detail = detail
        self.underlying = underlying
    }

    static func newerSchema(file: String, found: Int, supported: Int) -> StateStoreError {
        StateStoreError(.newerSchema, file: file,
                        detail: "schema version \(found); this emulator understands up to \(supported)")
    }

    /// Payload-free text, safe as a metrics label or log key.
    public var shortDescription: String { "StateStoreError.\(code)" }

    public var description: String {
        let ways = "delete or move it to start with empty state, or pass --ephemeral to run without stored state"
        switch code {
        case .unreadable:
            return "cannot read the emulator state file \(file): \(detail). Check its permissions and that no other "
                + "process holds it locked; otherwise \(ways)."
        case .corrupt:
            return "\(file) is not a usable emulator state file (\(detail)). It was left untouched: \(ways)."
        case .newerSchema:
            return "\(file) was written by a newer apns-emulator (\(detail)). It was left untouched: upgrade the "
                + "emulator, point the state directory elsewhere, or pass --ephemeral; delete it only if its keys "
                + "and tokens may be lost."
        default:
            return "could not write to the emulator state file \(file): \(detail). Nothing of this change was stored."
        }
    }
}
