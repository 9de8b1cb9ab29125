import Foundation

/// One value in SQLite's five storage classes.
///
/// Binds and reads go through this instead of SQLite's implicit conversions, so a column holding the wrong
/// type is reported rather than quietly read as 0 or "".
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class name SQLite uses in its own messages.
    package var storageClass: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}

/// A Swift type stored as exactly one SQLite storage class, so statements can bind it and rows can read it.
package protocol SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { get }
    /// Fails when `sqliteValue` has another storage class (or a value this type cannot represent).
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { self }
    package init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Int64: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Int: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .integer(let v) = sqliteValue, let i = Int(exactly: v) else { return nil }
        self = i
    }
}

extension Double: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .real(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .real(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension String: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .text(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .text(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Array: SQLiteValueConvertible where Element == UInt8 {
    package var sqliteValue: SQLiteValue { .blob(self) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .blob(let v) = sqliteValue else { return nil }
        self = v
    }
}

extension Data: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { .blob([UInt8](self)) }
    package init?(sqliteValue: SQLiteValue) {
        guard case .blob(let v) = sqliteValue else { return nil }
        self = Data(v)
    }
}

/// NULL maps to nil; anything else must convert to `Wrapped`.
extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    package init?(sqliteValue: SQLiteValue) {
        if case .null = sqliteValue {
            self = .none
        } else if let wrapped = Wrapped(sqliteValue: sqliteValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// String-backed enums are stored as their raw value, so the file stays readable with the `sqlite3` shell and
/// a renamed Swift case cannot silently change what is on disk.
extension SQLiteValueConvertible where Self: RawRepresentable, RawValue: SQLiteValueConvertible {
    package var sqliteValue: SQLiteValue { rawValue.sqliteValue }
    package init?(sqliteValue: SQLiteValue) {
        guard let raw = RawValue(sqliteValue: sqliteValue) else { return nil }
        self.init(rawValue: raw)
    }
}
