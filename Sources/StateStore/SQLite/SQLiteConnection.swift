import CSQLite

/// One open `sqlite3*`, handed to closures that run under `SQLiteDatabase`'s lock.
///
/// Not `Sendable` on purpose: it has no lock of its own, and the only way to reach one is through
/// `SQLiteDatabase.withConnection`/`transaction`, which hold the lock for the closure's whole run.
package final class SQLiteConnection {
    /// How `transaction` takes SQLite's locks.
    package enum TransactionKind: Sendable {
        /// `BEGIN`: a consistent read snapshot, no write lock until the first write.
        case deferred
        /// `BEGIN IMMEDIATE`: the write lock up front, so waiting happens in `busy_timeout` at the start instead
        /// of an unretryable `SQLITE_BUSY` when a read transaction later tries to write.
        case immediate
    }

    /// Owned: closed in `deinit` with `sqlite3_close_v2`, which also waits for unfinalized statements.
    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without parameters (schema scripts, pragmas), discarding any rows.
    package func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw SQLiteError(db: handle, sql: sql) }
    }

    /// Compiles exactly one statement. Trailing statements are an error rather than silently ignored, which
    /// is what `sqlite3_prepare_v2` alone would do.
    package func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer? = nil
        var trailing = ""
        let rc = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>? = nil
            let rc = sqlite3_prepare_v2(handle, text, -1, &statement, &tail)
            if let tail { trailing = String(cString: tail) }
            return rc
        }
        guard rc == SQLITE_OK else { throw SQLiteError(db: handle, sql: sql) }
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no statement to prepare", sql: sql)
        }
        let compiled = SQLiteStatement(handle: statement, sql: sql)
        guard trailing.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "prepare takes one statement; found more", sql: sql)
        }
        return compiled
    }

    /// Prepares, binds and runs one write statement.
    package func run(_ sql: String, _ values: [any SQLiteValueConvertible] = []) throws {
        try prepare(sql).run(values)
    }

    /// Every row of one query, each turned into a value by `row` while the statement sits on it.
    package func query<T>(_ sql: String, _ values: [any SQLiteValueConvertible] = [],
                          row: (SQLiteStatement) throws -> T) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first column of the first row, for `PRAGMA`s and `count(*)`; nil when there is no row.
    package func scalar<T: SQLiteValueConvertible>(_ sql: String, _ values: [any SQLiteValueConvertible] = [],
                                                   as type: T.Type = T.self) throws -> T? {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return try statement.column(0, as: T.self)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the commit) throws.
    ///
    /// Nesting is refused rather than emulated: callers compose bodies, not transactions.
    package func transaction<R>(_ kind: TransactionKind = .immediate,
                                _ body: (SQLiteConnection) throws -> sending R) throws -> sending R {
        guard !isInTransaction else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "transaction inside a transaction", sql: nil)
        }
        try execute(kind == .immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            // Some failures (SQLITE_FULL, SQLITE_IOERR) roll back on their own; the "no transaction is active"
            // error ROLLBACK then reports is expected and says nothing new.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// False in autocommit mode.
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}
