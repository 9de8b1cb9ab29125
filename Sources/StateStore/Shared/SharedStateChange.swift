/// A change to the shared state, as a shared store's feed reports it (every replica's, this one's too, in the
/// order the store made them). Only the name travels: the value is read back from the store, so a late or
/// repeated message can never roll a newer change back.
public struct SharedStateChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case key(String)
        case token(String)
        case fault(String)
        case shaping
        /// A broadcast channel (by id) was created or deleted.
        case channel(String)
        /// A manual clock was moved, frozen or let run.
        case clock
        /// Anything may have changed: an import, or the feed reconnected and may have missed messages.
        case everything
        /// Another replica was reset (`POST /_emulator/reset`): forget what is not in the store too (journal,
        /// channels, devices).
        case reset
    }

    public var kind: Kind
    /// The change's number in the store (nil when the feed itself reports `.everything` after reconnecting).
    public var version: Int64?
    public init(_ kind: Kind, version: Int64?) {
        self.kind = kind
        self.version = version
    }
}
