import APNsProtocol

extension ProviderKeyKind: SQLiteValueConvertible {}
extension APNsEnvironment: SQLiteValueConvertible {}

/// How a key is stored in the `keys` table. Column lists live here, next to the bindings and the reader,
/// so the three can only drift together.
extension ProviderKeyRecord {
    private static let columns =
        "key_id, team_id, kind, environment, topics, related_key_id, public_key_pem, created_at"

    static let sqliteInsert = "INSERT INTO keys (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    /// UPSERT rather than `INSERT OR REPLACE`: REPLACE deletes the row first, which would fire
    /// `ON DELETE CASCADE` on rows that reference it once other tables do.
    static let sqliteUpsert = sqliteInsert + """
         ON CONFLICT (key_id) DO UPDATE SET team_id = excluded.team_id, kind = excluded.kind,
         environment = excluded.environment, topics = excluded.topics, related_key_id = excluded.related_key_id,
         public_key_pem = excluded.public_key_pem, created_at = excluded.created_at
        """
    static let sqliteSelectAll = "SELECT \(columns) FROM keys ORDER BY key_id"
    static let sqliteDelete = "DELETE FROM keys WHERE key_id = ?"

    /// Values for `sqliteInsert`/`sqliteUpsert`, in column order.
    func sqliteBindings() throws -> [any SQLiteValueConvertible] {
        [keyId, teamId, kind, environment, try sqliteJSONText(topics), relatedKeyId, publicKeyPem, createdAt]
    }

    /// Reads the row `sqliteSelectAll` is on.
    init(sqliteRow row: SQLiteStatement) throws {
        self.init(keyId: try row.column(0), teamId: try row.column(1), kind: try row.column(2),
                  environment: try row.column(3), topics: try row.jsonColumn(4), relatedKeyId: try row.column(5),
                  publicKeyPem: try row.column(6), createdAt: try row.column(7))
    }
}
