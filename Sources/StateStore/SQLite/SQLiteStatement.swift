import CSQLite
import Foundation

/// `SQLITE_TRANSIENT` is the C macro `((sqlite3_destructor_type)-1)`, which Swift cannot import. It tells SQLite
/// to copy the bound bytes before the bind call returns, so Swift may free its temporary buffer right after.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A compiled statement: bind, step, read typed columns, reset and reuse.
///
/// Not `Sendable`, and only valid inside the `SQLiteDatabase.withConnection`/`transaction` closure that
/// prepared it: that closure holds the database's lock, which is what makes touching `handle` safe.
package final class SQLiteStatement {
    /// Owned: finalized in `deinit`. `sqlite3_close_v2` waits for it, so it never dangles.
    private let handle: OpaquePointer
    /// The text as prepared, for error messages.
    package let sql: String

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private func error() -> SQLiteError { SQLiteError(db: sqlite3_db_handle(handle), sql: sql) }

    // MARK: Binding

    /// Binds every `?` parameter in order. A count that differs from the statement's parameters is an error,
    /// not SQLite's default of NULL for the missing ones: a dropped value is always a bug.
    package func bind(_ values: [any SQLiteValueConvertible]) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE,
                              message: "\(values.count) values bound to \(expected) parameters", sql: sql)
        }
        for (offset, value) in values.enumerated() { try bind(value.sqliteValue, at: Int32(offset + 1)) }
    }

    package func bind(_ values: any SQLiteValueConvertible...) throws { try bind(values) }

    /// Binds one parameter (1-based, as in SQLite).
    package func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .integer(let v):
            rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            rc = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            // An explicit byte count keeps embedded NULs; -1 would stop at the first one.
            rc = v.withCString { sqlite3_bind_text(handle, index, $0, Int32(v.utf8.count), transientDestructor) }
        case .blob(let v) where v.isEmpty:
            // An empty array has no base address, and binding a nil pointer stores NULL instead of an empty blob.
            rc = sqlite3_bind_zeroblob(handle, index, 0)
        case .blob(let v):
            rc = v.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transientDestructor)
            }
        }
        guard rc == SQLITE_OK else { throw error() }
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is ready to read, false when the statement has finished.
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error()
        }
    }

    /// Readies the statement for another run with fresh bindings.
    package func reset() {
        // The code returned repeats the last step's failure, which that step already threw.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets, binds `values` and steps to completion: one execution of a write statement.
    package func run(_ values: [any SQLiteValueConvertible]) throws {
        reset()
        try bind(values)
        while try step() {}
    }

    package func run(_ values: any SQLiteValueConvertible...) throws { try run(values) }

    // MARK: Reading the current row

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "#\(index)"
    }

    /// The column as SQLite stores it.
    package func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Pointer first, then the byte count: the documented order, as fetching text may convert the value.
            let text = sqlite3_column_text(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let text else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes, count > 0 else { return .blob([]) }
            return .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// The column as `T`, or `SQLITE_MISMATCH` naming the column when it holds another type: a schema that
    /// drifted from the code fails loudly at the first read.
    package func column<T: SQLiteValueConvertible>(_ index: Int32, as type: T.Type = T.self) throws -> T {
        let value = value(at: index)
        guard let converted = T(sqliteValue: value) else {
            let message = "column \(index) '\(columnName(index))' holds \(Self.describe(value)), not \(T.self)"
            throw SQLiteError(code: SQLITE_MISMATCH, message: message, sql: sql)
        }
        return converted
    }

    private static func describe(_ value: SQLiteValue) -> String {
        switch value {
        case .text(let s): return "TEXT '\(s.prefix(40))'"
        case .integer(let i): return "INTEGER \(i)"
        default: return value.storageClass
        }
    }
}
