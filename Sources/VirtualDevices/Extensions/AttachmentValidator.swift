/// What `UNNotificationAttachment(identifier:url:options:)` accepts: the checks a service extension's
/// attachment passes or fails, with the reason the OS would give.
///
/// Rules (UNNotificationAttachment's): local files only, at most 10 MB; images JPEG/PNG/GIF/TIFF,
/// video MPEG/MP4/MOV of at most 30 s when the header says how long, audio MP3/AAC/WAV/CAF. The type
/// comes from the type hint when given, else from the bytes; either way the bytes must be of that
/// type's family, so a renamed PDF or a truncated JPEG fails creation.
public enum AttachmentValidator {
    public static let maximumBytes = 10 * 1024 * 1024
    public static let maximumVideoSeconds = 30.0

    /// An accepted attachment.
    public struct Accepted: Sendable, Equatable {
        public var type: AttachmentType
        public var bytes: Int
        /// Seconds, for video whose header says.
        public var duration: Double?
    }

    /// Why creation failed.
    public struct Refused: Error, Sendable, Equatable, CustomStringConvertible {
        public var code: AttachmentFailure.Code
        public var reason: String
        public var description: String { reason }

        public init(_ code: AttachmentFailure.Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    public static func validate(_ bytes: [UInt8], hint: String?) -> Result<Accepted, Refused> {
        guard !bytes.isEmpty else { return .failure(Refused(.empty, "the file is empty")) }
        guard bytes.count <= maximumBytes else {
            return .failure(Refused(.tooLarge, "the file is \(bytes.count) bytes, over the 10 MB attachment limit"))
        }
        let sniffed = AttachmentType.sniff(bytes)
        var type: AttachmentType
        if let hint {
            guard let hinted = AttachmentType(hint: hint) else {
                return .failure(Refused(.unsupportedHint, "the type hint '\(hint)' is not an image, video or audio type attachments accept"))
            }
            guard let sniffed, sniffed.family == hinted.family else {
                return .failure(Refused(.typeMismatch, "the content is not a valid \(hinted.rawValue) file (hint '\(hint)')"))
            }
            type = hinted
            // The hint picks among formats of the same family only when the bytes cannot tell (mp4/mov).
            if sniffed != hinted && ![.mp4, .mov].contains(sniffed) { type = sniffed }
        } else {
            guard let sniffed else {
                return .failure(Refused(.unsupportedType, "unsupported file type (not JPEG, PNG, GIF, TIFF, MPEG, MP4, MOV, MP3, AAC, WAV or CAF)"))
            }
            type = sniffed
        }
        var duration: Double?
        if type == .mp4 || type == .mov {
            duration = AttachmentType.movieDuration(bytes)
            if let d = duration, d > maximumVideoSeconds {
                // A hostile header can claim 2^64 seconds: no `Int(d)`, which would trap.
                let shown = Int(exactly: d.rounded(.down)).map(String.init) ?? "\(d)"
                return .failure(Refused(.videoTooLong, "the video is \(shown) s long, over the 30 s limit"))
            }
        }
        return .success(Accepted(type: type, bytes: bytes.count, duration: duration))
    }
}
