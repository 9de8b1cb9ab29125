import Foundation

/// Where a service extension's download comes from: a file the emulator serves (uploaded with
/// `PUT /_emulator/files/{name}`, addressed by any URL whose path is `/_emulator/files/{name}`) or a
/// `file://` path on this machine. Nothing leaves the machine: a scenario stays hermetic.
enum AttachmentFetch {
    static func load(_ url: String, files: [String: [UInt8]]) -> Result<[UInt8], AttachmentValidator.Refused> {
        if url.hasPrefix("file://") {
            let path = String(url.dropFirst("file://".count))
            guard let data = FileManager.default.contents(atPath: path) else {
                return .failure(.init(.unreadable, "cannot read \(path)"))
            }
            return .success(Array(data))
        }
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""),
              components.path.hasPrefix("/_emulator/files/") else {
            return .failure(.init(.unreachable, "the download of \(url) failed: only files the emulator serves "
                                  + "(/_emulator/files/{name}) and file:// paths are reachable"))
        }
        let name = String(components.path.dropFirst("/_emulator/files/".count))
        guard let bytes = files[name] else {
            return .failure(.init(.notFound, "the download of \(url) failed: 404 (no file '\(name)' was uploaded)"))
        }
        return .success(bytes)
    }
}
