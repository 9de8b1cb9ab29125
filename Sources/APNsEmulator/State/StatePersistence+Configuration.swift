import Foundation
import StateStore

/// The store `serve` uses for `configuration`: the shared Redis store with `--state-store`, nothing with
/// `--ephemeral`, otherwise `<stateDirectory>/state.sqlite3`, created on first use.
///
/// Chosen here, not in `EmulatorServices`, so tests and the CLI pick the same file the same way while
/// `EmulatorServices` stays usable with any store.
///
/// - Parameter configuration: reads `stateStore`, `replicaId`, `ephemeral` and `stateDirectory`.
/// - Throws: `RedisAddressError` or `RedisError` for a bad or unreachable `--state-store`; `StateStoreError`
///   naming the file when it cannot be created, read or understood; an existing file is never discarded to make room.
public func makeStatePersistence(for configuration: EmulatorConfiguration) throws -> any StatePersistence {
    if let url = configuration.stateStore {
        return try RedisStatePersistence(address: try RedisAddress(parsing: url), replicaId: configuration.replicaId)
    }
    if configuration.ephemeral { return NoPersistence() }
    let folder = URL(fileURLWithPath: configuration.stateDirectory, isDirectory: true)
    let file = folder.appendingPathComponent(SQLiteStatePersistence.fileName).path
    do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
        throw StateStoreError(.unreadable, file: file, detail: "cannot create the folder \(folder.path): "
                              + "\(error.localizedDescription)", underlying: error)
    }
    return try SQLiteStatePersistence(path: file)
}
