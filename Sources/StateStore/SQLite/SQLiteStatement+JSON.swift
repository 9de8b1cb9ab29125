import CSQLite
import Foundation

/// Columns holding JSON text, for values whose shape is read whole and never queried (a key's topics, a
/// fault's action): one column instead of a child table, and the `sqlite3` shell still shows them readably.
extension SQLiteStatement {
    /// Decodes the TEXT column as JSON; a decode failure is reported as `SQLITE_MISMATCH` naming the column.
    package func jsonColumn<T: Decodable>(_ index: Int32, as type: T.Type = T.self) throws -> T {
        let text: String = try column(index)
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw SQLiteError(code: SQLITE_MISMATCH,
                              message: "column \(index) '\(columnName(index))' is not a JSON \(T.self): \(error)",
                              sql: sql)
        }
    }
}

/// JSON text for a column, with sorted keys so equal values are stored as equal bytes.
package func sqliteJSONText<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
