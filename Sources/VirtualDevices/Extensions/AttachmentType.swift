/// The media types `UNNotificationAttachment` accepts: images, video, audio.
public enum AttachmentType: String, Sendable, Codable, CaseIterable {
    case jpeg, png, gif, tiff
    case mpeg, mp4, mov
    case mp3, aac, wav, caf

    public enum Family: String, Sendable, Codable {
        case image, video, audio
    }

    public var family: Family {
        switch self {
        case .jpeg, .png, .gif, .tiff: return .image
        case .mpeg, .mp4, .mov: return .video
        case .mp3, .aac, .wav, .caf: return .audio
        }
    }

    /// The type a `UNNotificationAttachmentOptionsTypeHintKey` value names: a UTI (`public.jpeg`) or a
    /// file extension (`jpg`), as apps pass either.
    public init?(hint: String) {
        switch hint.lowercased() {
        case "public.jpeg", "jpg", "jpeg": self = .jpeg
        case "public.png", "png": self = .png
        case "com.compuserve.gif", "gif": self = .gif
        case "public.tiff", "tif", "tiff": self = .tiff
        case "public.mpeg", "mpg", "mpeg": self = .mpeg
        case "public.mpeg-4", "mp4", "m4v": self = .mp4
        case "com.apple.quicktime-movie", "mov", "qt": self = .mov
        case "public.mp3", "mp3": self = .mp3
        case "public.aac-audio", "aac", "m4a": self = .aac
        case "com.microsoft.waveform-audio", "wav", "wave": self = .wav
        case "com.apple.coreaudio-format", "caf": self = .caf
        default: return nil
        }
    }

    /// The type the bytes are, from their signature; nil when they are none of the accepted formats.
    public static func sniff(_ bytes: [UInt8]) -> AttachmentType? {
        func at(_ offset: Int, _ signature: [UInt8]) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, Array("GIF87a".utf8)) || at(0, Array("GIF89a".utf8)) { return .gif }
        if at(0, [0x49, 0x49, 0x2A, 0x00]) || at(0, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if at(4, Array("ftyp".utf8)) {
            // The major brand says what the ISO media file holds: MPEG-4 audio (.m4a, .m4b audiobooks,
            // .m4p) is audio, QuickTime is a movie, anything else an MP4 video.
            if ["M4A ", "M4B ", "M4P ", "F4A "].contains(where: { at(8, Array($0.utf8)) }) { return .aac }
            return at(8, Array("qt  ".utf8)) ? .mov : .mp4
        }
        if at(4, Array("moov".utf8)) || at(4, Array("mdat".utf8)) { return .mov }
        if at(0, [0x00, 0x00, 0x01, 0xBA]) || at(0, [0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        if at(0, Array("RIFF".utf8)) && at(8, Array("WAVE".utf8)) { return .wav }
        if at(0, Array("caff".utf8)) { return .caf }
        if at(0, Array("ID3".utf8)) { return .mp3 }
        // Frame syncs: AAC ADTS is 0xFFF with layer 00; MPEG audio layer III is 0xFFE with layer 01.
        if bytes.count >= 2 && bytes[0] == 0xFF && (bytes[1] & 0xF6) == 0xF0 { return .aac }
        if bytes.count >= 2 && bytes[0] == 0xFF && (bytes[1] & 0xE6) == 0xE2 { return .mp3 }
        return nil
    }

    /// Seconds of a QuickTime/MP4 file from its `mvhd` box, when the header says.
    ///
    /// Walks the box structure (top-level boxes, then `moov`'s children) rather than searching for the bytes
    /// "mvhd": media data can contain them anywhere, and a search is slow on a 10 MB file.
    public static func movieDuration(_ bytes: [UInt8]) -> Double? {
        func u32(_ o: Int) -> UInt64? {
            guard o >= 0, o + 4 <= bytes.count else { return nil }
            return bytes[o..<o + 4].reduce(0) { $0 << 8 | UInt64($1) }
        }
        func u64(_ o: Int) -> UInt64? {
            guard let hi = u32(o), let lo = u32(o + 4) else { return nil }
            return hi << 32 | lo
        }
        /// The payload range of the first box of `type` among the boxes filling `range`.
        func child(_ type: String, in range: Range<Int>) -> Range<Int>? {
            let wanted = Array(type.utf8)
            var o = range.lowerBound
            while o + 8 <= range.upperBound, let size32 = u32(o) {
                var header = 8
                var size = Int(clamping: size32)
                if size32 == 1 {
                    guard let large = u64(o + 8) else { return nil }
                    size = Int(clamping: large)
                    header = 16
                } else if size32 == 0 {
                    size = range.upperBound - o
                }
                guard size >= header, size <= range.upperBound - o else { return nil }  // no overflow on hostile sizes
                if Array(bytes[o + 4..<o + 8]) == wanted { return (o + header)..<(o + size) }
                o += size
            }
            return nil
        }
        guard let moov = child("moov", in: 0..<bytes.count), let mvhd = child("mvhd", in: moov),
              mvhd.count >= 20 else { return nil }
        let fields = mvhd.lowerBound + 4  // after version and flags
        let timescale: UInt64?, duration: UInt64?
        if bytes[mvhd.lowerBound] == 1 {
            timescale = u32(fields + 16)
            duration = u64(fields + 20)
        } else {
            timescale = u32(fields + 8)
            duration = u32(fields + 12)
        }
        guard let timescale, timescale > 0, let duration else { return nil }
        return Double(duration) / Double(timescale)
    }
}
