import APNsProtocol

extension DeviceTokenKind: SQLiteValueConvertible {}

/// How a token is stored in the `tokens` table; column lists, bindings and reader kept together.
extension DeviceTokenRecord {
    private static let columns =
        "token, bundle_id, environment, kind, created_at, unregistered_at, expired_at, device_id"

    static let sqliteInsert = "INSERT INTO tokens (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    /// UPSERT, not REPLACE, so that devices referencing a token are never cascaded away by an update.
    static let sqliteUpsert = sqliteInsert + """
         ON CONFLICT (token) DO UPDATE SET bundle_id = excluded.bundle_id, environment = excluded.environment,
         kind = excluded.kind, created_at = excluded.created_at, unregistered_at = excluded.unregistered_at,
         expired_at = excluded.expired_at, device_id = excluded.device_id
        """
    /// The order `TokenRegistry.all()` lists them in.
    static let sqliteSelectAll = "SELECT \(columns) FROM tokens ORDER BY created_at, token"
    static let sqliteDelete = "DELETE FROM tokens WHERE token = ?"

    func sqliteBindings() -> [any SQLiteValueConvertible] {
        [token, bundleId, environment, kind, createdAt, unregisteredAt, expiredAt, deviceId]
    }

    init(sqliteRow row: SQLiteStatement) throws {
        self.init(token: try row.column(0), bundleId: try row.column(1), environment: try row.column(2),
                  kind: try row.column(3), createdAt: try row.column(4), unregisteredAt: try row.column(5),
                  expiredAt: try row.column(6), deviceId: try row.column(7))
    }
}
