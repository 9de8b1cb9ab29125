import Foundation
import StateStore
import Synchronization
import Testing

@testable import APNsEmulator

/// A fresh folder under the temporary directory, removed when the test ends.
final class SQLiteTestFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("sqlite-tests-\(UUID().uuidString)", isDirectory: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    /// Runs `body` on `count` real threads at once and waits (bounded) for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) {
        let group = DispatchGroup()
        let failures = Mutex<[String]>([])
        for index in 0..<count {
            group.enter()
            Thread {
                defer { group.leave() }
                do { try body(index) } catch { failures.withLock { $0.append("thread \(index): \(error)") } }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "threads did not finish in time")
        #expect(failures.withLock { $0 } == [])
    }
}

@Suite struct SQLiteDatabaseTests {
    /// SQLite's result codes, spelled out: the test target does not depend on `CSQLite`, and extended codes
    /// such as `SQLITE_CONSTRAINT_PRIMARYKEY` are composite C macros Swift cannot import anyway.
    static let sqliteError: Int32 = 1
    static let sqliteMismatch: Int32 = 20
    static let sqliteConstraintPrimaryKey: Int32 = 1555

    static func memory() throws -> SQLiteDatabase { try SQLiteDatabase(path: SQLiteDatabase.inMemory) }

    @Test func everyBindTypeReadsBackAsTheSameTypedValue() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, d BLOB, b BLOB, n TEXT) STRICT")
        let text = "héllo \u{0}world 🚀"
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                   [Int64.min, 2.5, text, Data([0, 1, 255]), [UInt8]([9, 8]), SQLiteValue.null])
        let rows = try db.query("SELECT i, r, s, d, b, n FROM t") { row in
            (try row.column(0, as: Int64.self), try row.column(1, as: Double.self),
             try row.column(2, as: String.self), try row.column(3, as: Data.self),
             try row.column(4, as: [UInt8].self), try row.column(5, as: String?.self))
        }
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.0 == Int64.min)
        #expect(row.1 == 2.5)
        #expect(row.2 == text)
        #expect(row.3 == Data([0, 1, 255]))
        #expect(row.4 == [9, 8])
        #expect(row.5 == nil)
    }

    @Test func emptyBlobAndEmptyTextStayEmptyRatherThanNull() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (b BLOB, s TEXT)")
        try db.run("INSERT INTO t VALUES (?, ?)", [[UInt8](), ""])
        let values = try db.query("SELECT b, s FROM t") { [$0.value(at: 0), $0.value(at: 1)] }
        #expect(values == [[.blob([]), .text("")]])
    }

    @Test func optionalBindsStoreNullAndValues() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (a INTEGER, b TEXT)")
        let none: Int64? = nil
        let some: String? = "x"
        try db.run("INSERT INTO t VALUES (?, ?)", [none, some])
        let row = try db.query("SELECT a, b FROM t") {
            (try $0.column(0, as: Int64?.self), try $0.column(1, as: String?.self))
        }
        #expect(row.first?.0 == nil)
        #expect(row.first?.1 == "x")
    }

    @Test func readingAColumnAsTheWrongTypeThrowsMismatchNamingTheColumn() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('abc')")
        #expect {
            _ = try db.query("SELECT name FROM t") { try $0.column(0, as: Int64.self) }
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.code == Self.sqliteMismatch && error.message.contains("'name'")
                && error.message.contains("abc")
        }
    }

    @Test func bindingTheWrongNumberOfValuesIsAnError() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (a, b)")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?, ?)", [Int64(1)]) }
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?, ?)", [Int64(1), Int64(2), Int64(3)]) }
    }

    @Test func prepareRefusesASecondStatementInsteadOfIgnoringIt() throws {
        let db = try Self.memory()
        #expect(throws: SQLiteError.self) {
            try db.withConnection { _ = try $0.prepare("SELECT 1; SELECT 2") }
        }
        try db.withConnection { _ = try $0.prepare("SELECT 1;  \n") }
    }

    @Test func errorsCarrySQLitesMessageAndTheFailingSQL() throws {
        let db = try Self.memory()
        let sql = "SELEC nonsense"
        do {
            try db.execute(sql)
            Issue.record("expected a syntax error")
        } catch let error as SQLiteError {
            #expect(error.primaryCode == Self.sqliteError)
            #expect(error.message.contains("syntax error"))
            #expect(error.sql == sql)
            #expect(error.description.contains(sql))
        }
    }

    @Test func constraintFailuresReportTheExtendedCode() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (id TEXT PRIMARY KEY); INSERT INTO t VALUES ('a')")
        do {
            try db.run("INSERT INTO t VALUES (?)", ["a"])
            Issue.record("expected a constraint failure")
        } catch let error as SQLiteError {
            #expect(error.isConstraintViolation)
            #expect(error.code == Self.sqliteConstraintPrimaryKey)
        }
    }

    @Test func transactionCommitsWhenTheBodyReturns() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (a INTEGER)")
        let value = try db.transaction { conn in
            try conn.run("INSERT INTO t VALUES (?)", [Int64(1)])
            #expect(conn.isInTransaction)
            return 42
        }
        #expect(value == 42)
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 1)
        #expect(try db.withConnection { $0.isInTransaction } == false)
    }

    @Test func transactionRollsBackEverythingWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let db = try Self.memory()
        try db.execute("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (0)")
        #expect(throws: Boom.self) {
            try db.transaction { conn in
                try conn.run("INSERT INTO t VALUES (?)", [Int64(1)])
                try conn.run("DELETE FROM t WHERE a = 0")
                throw Boom()
            }
        }
        #expect(try db.query("SELECT a FROM t") { try $0.column(0, as: Int64.self) } == [0])
        #expect(try db.withConnection { $0.isInTransaction } == false)
    }

    @Test func nestedTransactionsAreRefused() throws {
        let db = try Self.memory()
        #expect(throws: SQLiteError.self) {
            try db.transaction { conn in try conn.transaction { _ in } }
        }
    }

    @Test func openingAFileCreatesParentFoldersAndUsesWALWithForeignKeys() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("a/b/c/db.sqlite3")
        let db = try SQLiteDatabase(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try db.scalar("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try db.scalar("PRAGMA foreign_keys", as: Int.self) == 1)
        #expect(try db.scalar("PRAGMA synchronous", as: Int.self) == 2)  // FULL
    }

    @Test func foreignKeysAreEnforced() throws {
        let db = try Self.memory()
        try db.execute("CREATE TABLE p (id TEXT PRIMARY KEY); CREATE TABLE c (p TEXT REFERENCES p (id))")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO c VALUES (?)", ["missing"]) }
    }

    @Test func dataWrittenThroughOneConnectionIsReadByTheNextAfterClose() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("db.sqlite3")
        let first = try SQLiteDatabase(path: path)
        try first.execute("CREATE TABLE t (a TEXT)")
        try first.run("INSERT INTO t VALUES (?)", ["kept"])
        first.close()
        let second = try SQLiteDatabase(path: path)
        #expect(try second.query("SELECT a FROM t") { try $0.column(0, as: String.self) } == ["kept"])
    }

    @Test func everyCallAfterCloseThrowsAndCloseIsIdempotent() throws {
        let db = try Self.memory()
        db.close()
        db.close()
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1") }
    }

    @Test func aFileThatIsNotSQLiteFailsToOpenAsNotADatabase() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("garbage.sqlite3")
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try Data(repeating: 0xA5, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try SQLiteDatabase(path: path)
        } throws: { error in
            (error as? SQLiteError)?.isCorruptDatabase == true
        }
    }

    @Test func concurrentWritesFromEightThreadsAllLand() throws {
        let folder = SQLiteTestFolder()
        let db = try SQLiteDatabase(path: folder.path("db.sqlite3"))
        try db.execute("CREATE TABLE t (thread INTEGER, n INTEGER, PRIMARY KEY (thread, n))")
        SQLiteTestFolder.onThreads(8) { thread in
            for n in 0..<25 {
                try db.transaction { try $0.run("INSERT INTO t VALUES (?, ?)", [thread, n]) }
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t", as: Int.self) == 8 * 25)
    }
}
