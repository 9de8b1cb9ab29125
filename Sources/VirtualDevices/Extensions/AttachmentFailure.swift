/// An attachment a service extension tried and did not get onto the notification: which, and why, as a
/// code a test can match and the OS-style text.
public struct AttachmentFailure: Sendable, Codable, Equatable {
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The URL came from a payload path that is not in the payload.
        case noURL
        /// A `file://` path that cannot be read.
        case unreadable
        /// Not a file the emulator serves (nothing leaves the machine).
        case unreachable
        /// A served-file URL whose file was never uploaded.
        case notFound
        case empty
        /// Over the 10 MB limit.
        case tooLarge
        /// A type hint that is not an image, video or audio type.
        case unsupportedHint
        /// The bytes are not of the hinted type's family.
        case typeMismatch
        /// Bytes of no type attachments accept.
        case unsupportedType
        /// A video over 30 s.
        case videoTooLong
        /// Still downloading when the extension ended.
        case stillDownloading
    }

    public var identifier: String
    public var url: String
    public var code: Code
    public var reason: String
}
