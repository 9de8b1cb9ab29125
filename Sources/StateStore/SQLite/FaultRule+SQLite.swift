/// How a fault is stored in the `faults` table; column lists, bindings and reader kept together.
///
/// `FaultPlan` answers with the first matching rule and moves a re-added rule to the end, so the table keeps
/// an explicit `position` and an upsert gives the rule the next one.
extension FaultRule {
    private static let columns = "id, position, token, topic, action, remaining, expires_at, created_at"

    static let sqliteInsert = "INSERT INTO faults (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    /// UPSERT keeps the row (and anything that may reference it later) instead of deleting it as REPLACE does.
    static let sqliteUpsert = sqliteInsert + """
         ON CONFLICT (id) DO UPDATE SET position = excluded.position, token = excluded.token,
         topic = excluded.topic, action = excluded.action, remaining = excluded.remaining,
         expires_at = excluded.expires_at, created_at = excluded.created_at
        """
    static let sqliteNextPosition = "SELECT coalesce(max(position), 0) + 1 FROM faults"
    static let sqliteSelectAll = "SELECT \(columns) FROM faults ORDER BY position"
    static let sqliteDelete = "DELETE FROM faults WHERE id = ?"

    /// - Parameter position: where the rule sits in matching order (higher is later).
    func sqliteBindings(position: Int64) throws -> [any SQLiteValueConvertible] {
        [id, position, token, topic, try sqliteJSONText(action), remaining, expiresAt, createdAt]
    }

    init(sqliteRow row: SQLiteStatement) throws {
        self.init(id: try row.column(0), token: try row.column(2), topic: try row.column(3),
                  action: try row.jsonColumn(4), remaining: try row.column(5), expiresAt: try row.column(6),
                  createdAt: try row.column(7))
    }
}
