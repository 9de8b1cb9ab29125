import Foundation

extension DevCertificates {
    /// Writes every file under a temporary name first, then renames each into place.
    ///
    /// Staging everything before the first rename keeps the window in which old and new files are
    /// mixed down to a few `rename(2)` calls; `rename` within one folder is atomic, so no file is ever
    /// seen half-written. Key files are created 0600 from the start (not chmod-ed afterwards), so a
    /// private key is never readable by others even for a moment.
    static func writeAtomically(_ files: [(name: String, contents: String)], in directory: URL) throws {
        var staged: [(temporary: String, final: String)] = []
        defer {
            for file in staged { unlink(file.temporary) }
        }
        for file in files {
            let final = directory.appendingPathComponent(file.name).path
            let temporary = directory.appendingPathComponent(".\(file.name).tmp-\(UUID().uuidString)").path
            let mode: mode_t = FileName.privateKeys.contains(file.name) ? 0o600 : 0o644
            try writeNew(temporary, contents: Array(file.contents.utf8), mode: mode)
            staged.append((temporary, final))
        }
        while let file = staged.first {
            guard rename(file.temporary, file.final) == 0 else {
                throw DevCertificatesError.renameFailed(file.final, errno: errno)
            }
            staged.removeFirst()
        }
        syncDirectory(directory.path)
    }

    /// Creates `path` exclusively with `mode` (regardless of umask), writes and fsyncs it.
    private static func writeNew(_ path: String, contents: [UInt8], mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw DevCertificatesError.createFailed(path, errno: errno) }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw DevCertificatesError.createFailed(path, errno: errno) }
        var offset = 0
        while offset < contents.count {
            let written = contents[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw DevCertificatesError.writeFailed(path, errno: errno)
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw DevCertificatesError.writeFailed(path, errno: errno) }
    }

    /// Makes the renames durable; best effort, since a lost rename only means regenerating next time.
    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
