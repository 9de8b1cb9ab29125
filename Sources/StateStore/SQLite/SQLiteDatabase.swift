import CSQLite
import Foundation
import Synchronization

/// A SQLite database file (or `:memory:`) shared by every thread of the emulator.
///
/// ### Why `Sendable`
/// The one `sqlite3*` lives in `connection`, a `Mutex`, and is reachable only inside `withLock`: every call
/// into SQLite, from `prepare` to the last column read and `sqlite3_errmsg`, happens while that lock is held,
/// so no two threads ever use the handle at once. The lock is needed even though SQLite could serialise calls
/// itself: a transaction spans many calls, and another thread's statement must not land between `BEGIN` and
/// `COMMIT` on the same connection. The handle is still opened `SQLITE_OPEN_FULLMUTEX`, so a statement that
/// escaped its closure against the rules (it is not `Sendable`, but it can be stored) cannot corrupt SQLite's
/// state; with our lock uncontended at that level, the extra mutex costs nanoseconds.
///
/// Other processes (a second emulator on the same folder, the `sqlite3` shell) are handled by SQLite's file
/// locks: `busy_timeout` makes them wait instead of failing at once.
package final class SQLiteDatabase: Sendable {
    /// Opens an in-memory database that disappears with this object.
    package static let inMemory = ":memory:"

    package let path: String
    /// nil once closed. Protected by its own lock; see "Why `Sendable`".
    private let connection: Mutex<SQLiteConnection?>

    /// Opens (creating if needed) the database at `path`, creating missing parent folders.
    ///
    /// The connection is configured for the state store's needs:
    /// - `journal_mode=WAL`: readers never block the writer, and a crash mid-write leaves the old state intact.
    /// - `synchronous=FULL`: in WAL mode `NORMAL` may lose the last commits on power loss; we promise that a
    ///   write is durable when the call returns.
    /// - `foreign_keys=ON`: off by default in SQLite for compatibility; later tables (devices) rely on it.
    /// - `busy_timeout`: another process holding the write lock is waited for, not reported.
    ///
    /// - Parameters:
    ///   - path: a file path, or `SQLiteDatabase.inMemory`.
    ///   - busyTimeout: how long to wait for another connection's lock before failing with `SQLITE_BUSY`.
    package init(path: String, busyTimeout: Duration = .seconds(5)) throws {
        self.path = path
        if path != Self.inMemory && !path.isEmpty {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        var handle: OpaquePointer? = nil
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            // Even a failed open usually allocates a handle, which carries the message and must be closed.
            let error = SQLiteError(db: handle, sql: nil)
            sqlite3_close_v2(handle)
            throw SQLiteError(code: error.code, message: "cannot open \(path): \(error.message)")
        }
        let opened = SQLiteConnection(handle: handle)
        sqlite3_extended_result_codes(handle, 1)
        let (seconds, attoseconds) = busyTimeout.components
        sqlite3_busy_timeout(handle, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        // The first statement to read the file: a file that is not SQLite fails here with SQLITE_NOTADB.
        try opened.execute("PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        connection = Mutex(opened)
    }

    /// Runs `body` with the connection while holding the lock.
    ///
    /// `body` must not call back into this database (the lock is not recursive) and must not keep the
    /// connection or its statements.
    package func withConnection<R>(_ body: (SQLiteConnection) throws -> sending R) throws -> sending R {
        try connection.withLock { (open: inout SQLiteConnection?) throws -> sending R in
            guard let open else { throw SQLiteError.closed(path) }
            return try body(open)
        }
    }

    /// Runs `body` in one transaction; see `SQLiteConnection.transaction`.
    package func transaction<R>(_ kind: SQLiteConnection.TransactionKind = .immediate,
                                _ body: (SQLiteConnection) throws -> sending R) throws -> sending R {
        try withConnection { try $0.transaction(kind, body) }
    }

    /// Runs one or more statements without parameters.
    package func execute(_ sql: String) throws {
        try withConnection { try $0.execute(sql) }
    }

    /// Prepares, binds and runs one write statement.
    package func run(_ sql: String, _ values: [any SQLiteValueConvertible] = []) throws {
        try withConnection { try $0.run(sql, values) }
    }

    /// Every row of one query.
    package func query<T: Sendable>(_ sql: String, _ values: [any SQLiteValueConvertible] = [],
                                    row: (SQLiteStatement) throws -> T) throws -> [T] {
        try withConnection { try $0.query(sql, values, row: row) }
    }

    /// The first column of the first row.
    package func scalar<T: SQLiteValueConvertible & Sendable>(
        _ sql: String, _ values: [any SQLiteValueConvertible] = [], as type: T.Type = T.self
    ) throws -> T? {
        try withConnection { try $0.scalar(sql, values, as: T.self) }
    }

    /// Closes the connection; later calls throw. Safe to call twice. With WAL, the last connection to close
    /// checkpoints and removes the `-wal`/`-shm` files.
    package func close() {
        connection.withLock { $0 = nil }
    }
}
