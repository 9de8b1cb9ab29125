import CSQLite

/// A failed SQLite call, with SQLite's own words and the statement that failed.
///
/// SQLite's result codes are already an open, documented set (and grow with new releases), so this keeps the
/// raw extended code instead of closing it into an enum; the predicates below name the few cases callers act on.
package struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`SQLITE_CONSTRAINT_PRIMARYKEY`, not just `SQLITE_CONSTRAINT`), because
    /// extended codes are switched on for every connection.
    package let code: Int32
    /// `sqlite3_errmsg` at the time of failure (or our own text for misuse we detect first).
    package let message: String
    /// The statement that failed; nil for failures outside a statement (open, close).
    package let sql: String?

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// Reads the error SQLite recorded on `db`. Only meaningful while the caller still holds the database's
    /// lock: another thread's call would overwrite the message.
    init(db: OpaquePointer?, sql: String?) {
        let code = db.map { sqlite3_extended_errcode($0) } ?? SQLITE_NOMEM
        let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "out of memory"
        self.init(code: code, message: message, sql: sql)
    }

    /// The primary result code (`SQLITE_CONSTRAINT` for every constraint failure).
    package var primaryCode: Int32 { code & 0xFF }

    /// The file is not SQLite at all, or SQLite found damaged pages in it.
    package var isCorruptDatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    /// A UNIQUE, PRIMARY KEY, NOT NULL, CHECK or FOREIGN KEY constraint refused the write.
    package var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    /// Payload-free text, safe as a metrics label or log key: `SQLiteError.constraint failed`.
    package var shortDescription: String { "SQLiteError.\(String(cString: sqlite3_errstr(primaryCode)))" }

    package var description: String {
        let statement = sql.map { " in `\($0)`" } ?? ""
        return "SQLiteError(\(code)): \(message)\(statement)"
    }

    /// Every call after `close()`.
    static func closed(_ path: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: "database \(path) is closed", sql: sql)
    }
}
