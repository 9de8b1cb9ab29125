import Synchronization

/// Files uploaded with `PUT /_emulator/files/{name}`, which every shard's service extensions may download.
final class SharedFiles: Sendable {
    private let files = Mutex<[String: [UInt8]]>([:])

    /// The files as they are now (a copy of the dictionary; the bytes are shared).
    func snapshot() -> [String: [UInt8]] { files.withLock { $0 } }

    /// Stores `bytes` under `name`; true if it replaced a file.
    func put(_ name: String, _ bytes: [UInt8]) -> Bool {
        files.withLock { $0.updateValue(bytes, forKey: name) != nil }
    }

    func get(_ name: String) -> [UInt8]? { files.withLock { $0[name] } }

    /// Removes `name`; false if there was no such file.
    func remove(_ name: String) -> Bool { files.withLock { $0.removeValue(forKey: name) != nil } }

    func removeAll() { files.withLock { $0.removeAll() } }
}
