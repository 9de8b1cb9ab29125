import Foundation
import Testing

@testable import VirtualDevices

/// Real small files of every accepted type (made by `scripts/make-attachment-fixtures.py`) and broken ones.
@Suite("AttachmentValidator")
struct AttachmentValidatorTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    @Test(arguments: [
        ("image.jpg", AttachmentType.jpeg), ("image.png", .png), ("image.gif", .gif), ("image.tiff", .tiff),
        ("clip.mpg", .mpeg), ("clip.mp4", .mp4), ("clip.mov", .mov),
        ("sound.mp3", .mp3), ("sound.aac", .aac), ("sound.wav", .wav), ("sound.caf", .caf), ("sound.m4a", .aac),
    ])
    func everyAcceptedTypeIsRecognisedFromItsBytes(_ file: String, _ type: AttachmentType) throws {
        guard case .success(let accepted) = AttachmentValidator.validate(try Self.bytes(file), hint: nil) else {
            Issue.record("\(file) refused")
            return
        }
        #expect(accepted.type == type)
    }

    /// An .m4a is an ISO media file like an MP4 (an `ftyp` box) but its brand says audio: it is accepted with
    /// its `m4a` hint, and its length (45 s here) is no video's 30 s limit.
    @Test func mpeg4AudioIsAudioNotVideo() throws {
        let bytes = try Self.bytes("sound.m4a")
        #expect(AttachmentType.sniff(bytes) == .aac)
        for hint in ["m4a", "public.aac-audio", nil] as [String?] {
            guard case .success(let accepted) = AttachmentValidator.validate(bytes, hint: hint) else {
                Issue.record("sound.m4a refused with hint \(hint ?? "none")")
                continue
            }
            #expect(accepted.type == .aac)
            #expect(accepted.duration == nil)
        }
        guard case .failure(let refused) = AttachmentValidator.validate(bytes, hint: "mp4") else {
            Issue.record("audio accepted as an MP4 video")
            return
        }
        #expect(refused.reason == "the content is not a valid mp4 file (hint 'mp4')")
    }

    @Test func videoDurationComesFromTheHeaderAndOver30SecondsIsRefused() throws {
        guard case .success(let clip) = AttachmentValidator.validate(try Self.bytes("clip.mp4"), hint: "public.mpeg-4") else {
            Issue.record("clip refused")
            return
        }
        #expect(clip.duration == 5)
        #expect(AttachmentValidator.validate(try Self.bytes("long.mp4"), hint: nil)
            == .failure(.init(.videoTooLong, "the video is 45 s long, over the 30 s limit")))
    }

    /// Builds an ISO media box: 32-bit size, type, payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
    }

    static func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }

    /// Media data may hold the bytes "mvhd" anywhere (and often comes before `moov`): the duration is read from the
    /// header inside `moov`, not from the first match, and both header versions are understood.
    @Test func durationIsReadFromTheMovieHeaderInsideMoovNotFromMatchingBytesInMediaData() {
        let ftyp = Self.box("ftyp", Array("isom".utf8) + Self.be(UInt32(0)) + Array("isommp41".utf8))
        let decoy = Self.box("mdat", Array("xxmvhd".utf8) + [0] + [UInt8](repeating: 0xFF, count: 40))
        let v0 = Self.box("mvhd", [0, 0, 0, 0] + Self.be(UInt32(0)) + Self.be(UInt32(0)) + Self.be(UInt32(1000))
            + Self.be(UInt32(12_000)) + [UInt8](repeating: 0, count: 80))
        let v1 = Self.box("mvhd", [1, 0, 0, 0] + Self.be(UInt64(0)) + Self.be(UInt64(0)) + Self.be(UInt32(600))
            + Self.be(UInt64(600 * 40)) + [UInt8](repeating: 0, count: 80))
        #expect(AttachmentType.movieDuration(ftyp + decoy + Self.box("moov", v0)) == 12)
        #expect(AttachmentType.movieDuration(ftyp + decoy + Self.box("moov", Self.box("trak", []) + v1)) == 40)
        #expect(AttachmentType.movieDuration(ftyp + decoy) == nil)
        // A box claiming to be far larger than the file ends the walk instead of reading past the end.
        let hostile = Self.be(UInt32(1)) + Array("moov".utf8) + Self.be(UInt64.max) + v0
        #expect(AttachmentType.movieDuration(ftyp + hostile) == nil)
    }

    @Test func brokenAndUnsupportedFilesFailCreationWithTheReason() throws {
        #expect(AttachmentValidator.validate(try Self.bytes("corrupt.jpg"), hint: "jpg")
            == .failure(.init(.typeMismatch, "the content is not a valid jpeg file (hint 'jpg')")))
        #expect(AttachmentValidator.validate(try Self.bytes("document.pdf"), hint: nil)
            == .failure(.init(.unsupportedType, "unsupported file type (not JPEG, PNG, GIF, TIFF, MPEG, MP4, MOV, MP3, AAC, WAV or CAF)")))
        #expect(AttachmentValidator.validate(try Self.bytes("document.pdf"), hint: "com.adobe.pdf")
            == .failure(.init(.unsupportedHint, "the type hint 'com.adobe.pdf' is not an image, video or audio type attachments accept")))
        #expect(AttachmentValidator.validate(try Self.bytes("empty.png"), hint: nil) == .failure(.init(.empty, "the file is empty")))
        let big = try Self.bytes("image.png") + [UInt8](repeating: 0, count: AttachmentValidator.maximumBytes)
        #expect(AttachmentValidator.validate(big, hint: nil)
            == .failure(.init(.tooLarge, "the file is \(big.count) bytes, over the 10 MB attachment limit")))
    }

    @Test func hintOfTheWrongFamilyIsRefusedButMovAndMp4ShareTheirSignature() throws {
        #expect(AttachmentValidator.validate(try Self.bytes("image.png"), hint: "mp3")
            == .failure(.init(.typeMismatch, "the content is not a valid mp3 file (hint 'mp3')")))
        guard case .success(let mov) = AttachmentValidator.validate(try Self.bytes("clip.mp4"), hint: "mov") else {
            Issue.record("mp4 bytes with a mov hint refused")
            return
        }
        #expect(mov.type == .mov)
        guard case .success(let png) = AttachmentValidator.validate(try Self.bytes("image.png"), hint: "jpg") else {
            Issue.record("image with another image hint refused")
            return
        }
        #expect(png.type == .png, "the bytes decide among images")
    }
}
