import CSQLite

/// The state file's layout and the steps that bring an older file up to it.
///
/// The version lives in the file header (`PRAGMA user_version`), so it is read without any table existing.
/// Step *n* moves a file from version *n* to *n + 1*; a shipped step is never edited, later issues append
/// steps (devices will add a table). Each step runs in its own `BEGIN IMMEDIATE` transaction together with
/// the version bump, so a crash mid-migration leaves the file at the previous version, and two emulators
/// starting on the same folder cannot both apply a step.
enum SQLiteStateSchema {
    /// One migration step; `apply` runs inside the step's transaction.
    struct Step: Sendable {
        let summary: String
        let apply: @Sendable (SQLiteConnection) throws -> Void
    }

    /// Marks the file as ours in the header (`'APNS'`), so another program's database is recognised and
    /// refused rather than having tables added to it.
    static let applicationId: Int64 = 0x4150_4E53

    static let steps: [Step] = [
        Step(summary: "keys, tokens and faults") { db in
            // STRICT tables reject a value of the wrong type instead of storing it; SQLite 3.37+.
            try db.execute("""
                CREATE TABLE keys (
                    key_id         TEXT PRIMARY KEY NOT NULL,
                    team_id        TEXT NOT NULL,
                    kind           TEXT NOT NULL,
                    environment    TEXT,
                    topics         TEXT NOT NULL,   -- JSON array of bundle ids
                    related_key_id TEXT,
                    public_key_pem TEXT NOT NULL,
                    created_at     INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE tokens (
                    token           TEXT PRIMARY KEY NOT NULL,
                    bundle_id       TEXT NOT NULL,
                    environment     TEXT NOT NULL,
                    kind            TEXT NOT NULL,
                    created_at      INTEGER NOT NULL,
                    unregistered_at INTEGER,
                    expired_at      INTEGER,
                    device_id       TEXT
                ) STRICT;
                CREATE INDEX tokens_by_app ON tokens (bundle_id, environment);
                CREATE TABLE faults (
                    id         TEXT PRIMARY KEY NOT NULL,
                    position   INTEGER NOT NULL,  -- rules match first-come, so their order must survive
                    token      TEXT,
                    topic      TEXT,
                    action     TEXT NOT NULL,     -- JSON FaultAction
                    remaining  INTEGER,
                    expires_at INTEGER,
                    created_at INTEGER NOT NULL
                ) STRICT;
                PRAGMA application_id = \(applicationId);
                """)
        },
    ]

    static var currentVersion: Int { steps.count }

    /// Brings the file to `currentVersion`, refusing files from a newer emulator or another program.
    ///
    /// - Parameter file: the path named in errors.
    static func migrate(_ db: SQLiteConnection, file: String) throws {
        while try db.transaction(.immediate, { db in try applyNextStep(db, file: file) }) {}
    }

    /// Applies one step if one is due; false when the file is current.
    private static func applyNextStep(_ db: SQLiteConnection, file: String) throws -> Bool {
        let version = try db.scalar("PRAGMA user_version", as: Int.self) ?? 0
        let application = try db.scalar("PRAGMA application_id", as: Int64.self) ?? 0
        guard application == applicationId || application == 0 else {
            throw StateStoreError(.corrupt, file: file,
                                  detail: "it belongs to another application (application_id \(application))")
        }
        if version > currentVersion {
            throw StateStoreError.newerSchema(file: file, found: version, supported: currentVersion)
        }
        if version == currentVersion { return false }
        if version == 0 {
            let objects = try db.scalar("SELECT count(*) FROM sqlite_schema", as: Int.self) ?? 0
            guard objects == 0 else {
                throw StateStoreError(.corrupt, file: file,
                                      detail: "it holds \(objects) tables or indexes the emulator did not create")
            }
        }
        try steps[version].apply(db)
        // PRAGMA takes no parameters; `version` is an Int, so interpolation cannot inject anything.
        try db.execute("PRAGMA user_version = \(version + 1)")
        return true
    }
}
