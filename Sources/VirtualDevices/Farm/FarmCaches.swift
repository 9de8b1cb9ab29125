import H2Transport
import WireBytes

/// State the OS model reads on every delivery, owned by a shard of the farm: parsed payloads, and the farm's
/// uploaded files.
///
/// `payloads` skips the dynamic exclusivity check: only `content(of:)` touches it, under its shard's lock.
///
/// `@unchecked Sendable`: every access to `payloads` happens under its shard's `Mutex` (an `OSContext`, which
/// carries this reference, exists only inside `DeviceFarm.withApp`, itself called with the lock held); `files`
/// has its own lock.
final class FarmCaches: @unchecked Sendable {
    /// Files served at `/_emulator/files/{name}` for service extensions to download.
    let files: SharedFiles

    init(files: SharedFiles) {
        self.files = files
    }
    /// The last payloads parsed, newest first: a sender repeats its payload template, so a push usually costs
    /// a byte comparison instead of a JSON parse.
    @exclusivity(unchecked) private var payloads: [(bytes: [UInt8], content: PushContent)] = []
    private static let payloadsKept = 8

    func content(of payload: [UInt8]) -> PushContent {
        if let i = payloads.firstIndex(where: { bytesEqual($0.bytes, payload) }) {
            if i != 0 { payloads.insert(payloads.remove(at: i), at: 0) }
            return payloads[0].content
        }
        let content = PushContent(payload: payload)
        payloads.insert((payload, content), at: 0)
        if payloads.count > Self.payloadsKept { payloads.removeLast() }
        return content
    }

    func fetch(_ url: String) -> Result<[UInt8], AttachmentValidator.Refused> {
        AttachmentFetch.load(url, files: files.snapshot())
    }
}
