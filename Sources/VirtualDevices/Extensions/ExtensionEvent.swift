/// A step of a service extension's run, at its time on the emulator clock.
public struct ExtensionEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// `didReceive(_:withContentHandler:)` was called.
        case didReceive
        /// `serviceExtensionTimeWillExpire()` was called, a second before the 30 s budget ends.
        case timeWillExpire
        /// The content handler was called (from didReceive, or from timeWillExpire with the best attempt).
        case contentHandler
        /// The system killed the extension (memory) or gave up on it at the deadline.
        case killed
        case timedOut
    }

    public var at: Int64
    public var event: Kind
}
