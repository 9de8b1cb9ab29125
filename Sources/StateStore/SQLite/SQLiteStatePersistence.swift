import CSQLite

/// Keys, tokens and faults in a SQLite file, so they survive a restart of the emulator.
///
/// Every write is its own `BEGIN IMMEDIATE` transaction, committed with `synchronous=FULL` before the call
/// returns: once a registry reports success, the change is on disk. Calls may come from any thread;
/// `SQLiteDatabase` serialises them, and SQLite's file locks serialise them against another emulator on the
/// same folder.
///
/// Opening never repairs, resets or replaces a file it cannot use: it throws `StateStoreError`, which names
/// the file and the user's options.
public final class SQLiteStatePersistence: StatePersistence {
    /// The file name `makeStatePersistence(for:)` uses inside the state directory.
    public static let fileName = "state.sqlite3"
    /// The schema version this build writes; files with a higher `user_version` are refused.
    public static var schemaVersion: Int { SQLiteStateSchema.currentVersion }

    public let path: String
    private let database: SQLiteDatabase

    /// Opens or creates the state file, checks it and brings its schema up to date.
    ///
    /// - Parameter path: the file (parent folders are created), or `":memory:"` for a throwaway store.
    /// - Throws: `StateStoreError` naming the file: `.corrupt`, `.newerSchema` or `.unreadable`.
    public init(path: String) throws {
        self.path = path
        do {
            database = try SQLiteDatabase(path: path)
            try database.withConnection { db in
                // A cheap whole-file check at start, so damage is reported here, with advice, and not as a 500
                // from some later write.
                let verdict = try db.scalar("PRAGMA quick_check", as: String.self) ?? "ok"
                guard verdict == "ok" else {
                    throw StateStoreError(.corrupt, file: path, detail: "integrity check: \(verdict)")
                }
                try SQLiteStateSchema.migrate(db, file: path)
            }
        } catch {
            throw Self.translate(error, file: path, otherwise: .unreadable)
        }
    }

    /// Releases the file; later calls throw `StateStoreError.writeFailed` / `.unreadable`.
    public func close() {
        database.close()
    }

    public func load() throws -> EmulatorState {
        do {
            // One read transaction, so the three tables come from the same snapshot even while another
            // emulator writes to the file.
            return try database.transaction(.deferred) { db in
                EmulatorState(
                    keys: try db.query(ProviderKeyRecord.sqliteSelectAll, row: ProviderKeyRecord.init(sqliteRow:)),
                    tokens: try db.query(DeviceTokenRecord.sqliteSelectAll, row: DeviceTokenRecord.init(sqliteRow:)),
                    faults: try db.query(FaultRule.sqliteSelectAll, row: FaultRule.init(sqliteRow:)))
            }
        } catch {
            throw Self.translate(error, file: path, otherwise: .unreadable)
        }
    }

    public func upsertKey(_ key: ProviderKeyRecord) throws {
        let values = try key.sqliteBindings()
        try write { try $0.run(ProviderKeyRecord.sqliteUpsert, values) }
    }

    public func deleteKey(keyId: String) throws {
        try write { try $0.run(ProviderKeyRecord.sqliteDelete, [keyId]) }
    }

    public func upsertToken(_ token: DeviceTokenRecord) throws {
        try write { try $0.run(DeviceTokenRecord.sqliteUpsert, token.sqliteBindings()) }
    }

    public func deleteToken(_ token: String) throws {
        try write { try $0.run(DeviceTokenRecord.sqliteDelete, [token]) }
    }

    public func upsertFault(_ fault: FaultRule) throws {
        try write { db in
            let position = try db.scalar(FaultRule.sqliteNextPosition, as: Int64.self) ?? 1
            try db.run(FaultRule.sqliteUpsert, try fault.sqliteBindings(position: position))
        }
    }

    public func deleteFault(id: String) throws {
        try write { try $0.run(FaultRule.sqliteDelete, [id]) }
    }

    /// Swaps the whole state in one transaction: a failure at any row (say, two faults with one id) leaves the
    /// file exactly as it was. Duplicate ids are refused, not merged, so an import never loses a record quietly.
    public func replaceAll(with state: EmulatorState) throws {
        try write { db in
            try db.execute("DELETE FROM faults; DELETE FROM tokens; DELETE FROM keys")
            let insertKey = try db.prepare(ProviderKeyRecord.sqliteInsert)
            for key in state.keys { try insertKey.run(try key.sqliteBindings()) }
            let insertToken = try db.prepare(DeviceTokenRecord.sqliteInsert)
            for token in state.tokens { try insertToken.run(token.sqliteBindings()) }
            let insertFault = try db.prepare(FaultRule.sqliteInsert)
            for (index, fault) in state.faults.enumerated() {
                try insertFault.run(try fault.sqliteBindings(position: Int64(index + 1)))
            }
        }
    }

    /// One durable write transaction, with failures reported against the file.
    private func write(_ body: (SQLiteConnection) throws -> Void) throws {
        do {
            try database.transaction(.immediate) { try body($0) }
        } catch {
            throw Self.translate(error, file: path, otherwise: .writeFailed)
        }
    }

    /// Names the file in every failure: damage is `.corrupt` whatever the operation, anything else is `fallback`.
    private static func translate(_ error: any Error, file: String, otherwise fallback: StateStoreError.Code)
        -> StateStoreError {
        switch error {
        case let error as StateStoreError:
            return error
        case let error as SQLiteError where error.isCorruptDatabase || error.primaryCode == SQLITE_MISMATCH:
            return StateStoreError(.corrupt, file: file, detail: error.message, underlying: error)
        case let error as SQLiteError:
            return StateStoreError(fallback, file: file, detail: error.message, underlying: error)
        default:
            return StateStoreError(fallback, file: file, detail: "\(error)", underlying: error)
        }
    }
}
