import APNsProtocol
import Foundation
import OpenSSLSupport
import StateStore
import Testing

@testable import APNsEmulator

@Suite struct SQLiteStatePersistenceTests {
    // MARK: Fixtures

    static let pem = "-----BEGIN PUBLIC KEY-----\nnot parsed by the store\n-----END PUBLIC KEY-----\n"

    /// A legacy team key: every optional field unset.
    static let bareKey = ProviderKeyRecord(keyId: "AAAAAAAAAA", teamId: "TEAM000001", kind: .team,
                                           publicKeyPem: pem, createdAt: 1)
    /// A topic key: every optional field set.
    static let fullKey = ProviderKeyRecord(keyId: "BBBBBBBBBB", teamId: "TEAM000001", kind: .topic,
                                           environment: .sandbox, topics: ["com.example.a", "com.example.b"],
                                           relatedKeyId: "AAAAAAAAAA", publicKeyPem: pem, createdAt: 2)
    static let bareToken = DeviceTokenRecord(token: String(repeating: "ab", count: 32), bundleId: "com.example.a",
                                             environment: .production, createdAt: 10)
    static let fullToken = DeviceTokenRecord(token: String(repeating: "cd", count: 80), bundleId: "com.example.b",
                                             environment: .sandbox, kind: .liveActivity, createdAt: 11,
                                             unregisteredAt: 12, expiredAt: 13, deviceId: "device-1")
    static let bareFault = FaultRule(id: "f-bare", action: .resetStream, createdAt: 20)
    static let fullFault = FaultRule(id: "f-full", token: bareToken.token, topic: "com.example.a",
                                     action: .goAway(reason: "Shutdown"), remaining: 3, expiresAt: 99, createdAt: 21)
    static let everyAction: [FaultAction] = [
        .reason("BadDeviceToken"), .delay(1500), .resetStream, .goAway(reason: "TooManyRequests"), .shutdown,
    ]

    static let fullState = EmulatorState(keys: [bareKey, fullKey], tokens: [bareToken, fullToken],
                                         faults: [bareFault, fullFault])

    static func memory() throws -> SQLiteStatePersistence { try SQLiteStatePersistence(path: ":memory:") }

    static func configuration(_ folder: SQLiteTestFolder) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration()
        configuration.stateDirectory = folder.path("state")
        configuration.registerSampleKey = false
        return configuration
    }

    // MARK: Round trips

    @Test func keysRoundTripWithEveryOptionalFieldSetAndUnset() throws {
        let store = try Self.memory()
        try store.upsertKey(Self.fullKey)
        try store.upsertKey(Self.bareKey)
        #expect(try store.load().keys == [Self.bareKey, Self.fullKey])
    }

    @Test func tokensRoundTripWithEveryOptionalFieldSetAndUnset() throws {
        let store = try Self.memory()
        try store.upsertToken(Self.fullToken)
        try store.upsertToken(Self.bareToken)
        #expect(try store.load().tokens == [Self.bareToken, Self.fullToken])
    }

    @Test func faultsRoundTripWithEveryOptionalFieldSetAndUnset() throws {
        let store = try Self.memory()
        try store.upsertFault(Self.bareFault)
        try store.upsertFault(Self.fullFault)
        #expect(try store.load().faults == [Self.bareFault, Self.fullFault])
    }

    @Test(arguments: everyAction)
    func everyFaultActionRoundTrips(action: FaultAction) throws {
        let store = try Self.memory()
        let rule = FaultRule(id: "f", action: action, createdAt: 1)
        try store.upsertFault(rule)
        #expect(try store.load().faults == [rule])
    }

    @Test func aFreshStoreLoadsAnEmptyCurrentVersionState() throws {
        #expect(try Self.memory().load() == EmulatorState())
    }

    // MARK: Upserts and deletes

    @Test func upsertReplacesTheRecordWithTheSameKey() throws {
        let store = try Self.memory()
        try store.upsertKey(Self.fullKey)
        var key = Self.fullKey
        key.topics = ["com.example.c"]
        key.environment = nil
        try store.upsertKey(key)

        try store.upsertToken(Self.bareToken)
        var token = Self.bareToken
        token.unregisteredAt = 500
        try store.upsertToken(token)

        try store.upsertFault(Self.fullFault)
        var fault = Self.fullFault
        fault.remaining = nil
        try store.upsertFault(fault)

        #expect(try store.load() == EmulatorState(keys: [key], tokens: [token], faults: [fault]))
    }

    @Test func reAddingAFaultMovesItToTheEndAsFaultPlanDoes() throws {
        let store = try Self.memory()
        try store.upsertFault(Self.bareFault)
        try store.upsertFault(Self.fullFault)
        try store.upsertFault(Self.bareFault)
        #expect(try store.load().faults.map(\.id) == [Self.fullFault.id, Self.bareFault.id])
    }

    @Test func deletesRemoveOnlyTheNamedRecordAndIgnoreUnknownOnes() throws {
        let store = try Self.memory()
        try store.replaceAll(with: Self.fullState)
        try store.deleteKey(keyId: Self.bareKey.keyId)
        try store.deleteToken(Self.fullToken.token)
        try store.deleteFault(id: Self.bareFault.id)
        try store.deleteKey(keyId: "NOSUCHKEY0")
        try store.deleteToken("00")
        try store.deleteFault(id: "nope")
        #expect(try store.load() == EmulatorState(keys: [Self.fullKey], tokens: [Self.bareToken],
                                                  faults: [Self.fullFault]))
    }

    // MARK: replaceAll

    @Test func replaceAllSwapsEverythingAndKeepsFaultOrder() throws {
        let store = try Self.memory()
        try store.upsertKey(Self.bareKey)
        try store.upsertToken(Self.fullToken)
        let next = EmulatorState(keys: [Self.fullKey], tokens: [Self.bareToken],
                                 faults: [Self.fullFault, Self.bareFault])
        try store.replaceAll(with: next)
        #expect(try store.load() == next)
        try store.replaceAll(with: EmulatorState())
        #expect(try store.load() == EmulatorState())
    }

    @Test func replaceAllFailingOnItsLastRowLeavesTheOldStateWhole() throws {
        let store = try Self.memory()
        try store.replaceAll(with: Self.fullState)
        // Keys and tokens are deleted and re-inserted before the second fault collides on its primary key.
        let clash = EmulatorState(keys: [Self.fullKey], tokens: [], faults: [Self.bareFault, Self.bareFault])
        #expect {
            try store.replaceAll(with: clash)
        } throws: { error in
            (error as? StateStoreError)?.code == .writeFailed && "\(error)".contains("UNIQUE")
        }
        #expect(try store.load() == Self.fullState)
    }

    @Test func replaceAllOnAClosedStoreThrowsAndTheFileKeepsItsState() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("state.sqlite3")
        let store = try SQLiteStatePersistence(path: path)
        try store.replaceAll(with: Self.fullState)
        store.close()
        #expect(throws: StateStoreError.self) { try store.replaceAll(with: EmulatorState()) }
        #expect(try SQLiteStatePersistence(path: path).load() == Self.fullState)
    }

    // MARK: Restart

    @Test func stateSurvivesClosingAndReopeningTheFile() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("nested/state.sqlite3")
        let first = try SQLiteStatePersistence(path: path)
        try first.replaceAll(with: Self.fullState)
        try first.deleteFault(id: Self.bareFault.id)
        first.close()

        let second = try SQLiteStatePersistence(path: path)
        #expect(try second.load() == EmulatorState(keys: Self.fullState.keys, tokens: Self.fullState.tokens,
                                                   faults: [Self.fullFault]))
    }

    @Test func servicesOverTheSameFolderSeeWhatAnEarlierInstanceWrote() throws {
        let folder = SQLiteTestFolder()
        let configuration = Self.configuration(folder)
        let pem = try PrivateKey.generateP256().publicKeyPEM
        let key = ProviderKeyRecord(keyId: "KEY0000001", teamId: "TEAM000001", kind: .teamScoped,
                                    environment: .production, publicKeyPem: pem, createdAt: 5)
        let fault = FaultRule(id: "slow", topic: "com.example.a", action: .delay(250), createdAt: 6)

        let written: EmulatorState
        do {
            let first = try EmulatorServices(configuration: configuration,
                                             persistence: makeStatePersistence(for: configuration))
            try first.keys.register(key)
            _ = try first.tokens.issue(bundleId: "com.example.a", environment: .sandbox, now: 7)
            try first.faults.add(fault)
            written = first.exportState()
            (first.persistence as? SQLiteStatePersistence)?.close()
        }

        let second = try EmulatorServices(configuration: configuration,
                                          persistence: makeStatePersistence(for: configuration))
        #expect(second.exportState() == written)
        #expect(second.keys.lookup(key.keyId)?.record == key)
        #expect(second.tokens.all().count == 1)
        #expect(second.faults.all() == [fault])
    }

    // MARK: The factory and files it cannot use

    @Test func ephemeralConfigurationStoresNothingOnDisk() throws {
        let folder = SQLiteTestFolder()
        var configuration = Self.configuration(folder)
        configuration.ephemeral = true
        #expect(try makeStatePersistence(for: configuration) is NoPersistence)
        #expect(!FileManager.default.fileExists(atPath: configuration.stateDirectory))
    }

    @Test func factoryCreatesTheStateFolderAndFile() throws {
        let folder = SQLiteTestFolder()
        let configuration = Self.configuration(folder)
        let store = try makeStatePersistence(for: configuration)
        #expect(store is SQLiteStatePersistence)
        #expect(FileManager.default.fileExists(atPath: folder.path("state/state.sqlite3")))
    }

    @Test func aGarbageFileIsRefusedWithAnErrorNamingItAndIsLeftUntouched() throws {
        let folder = SQLiteTestFolder()
        let configuration = Self.configuration(folder)
        let file = folder.path("state/state.sqlite3")
        try FileManager.default.createDirectory(atPath: configuration.stateDirectory, withIntermediateDirectories: true)
        let garbage = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: file))

        #expect {
            _ = try makeStatePersistence(for: configuration)
        } throws: { error in
            guard let error = error as? StateStoreError else { return false }
            return error.code == .corrupt && error.file == file && error.description.contains(file)
                && error.description.contains("--ephemeral") && error.description.contains("delete")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == garbage)
    }

    @Test func aFileFromANewerSchemaIsRefusedWithAnErrorNamingItAndBothVersions() throws {
        let folder = SQLiteTestFolder()
        let configuration = Self.configuration(folder)
        let file = folder.path("state/state.sqlite3")
        do {
            let store = try SQLiteStatePersistence(path: file)
            try store.upsertKey(Self.bareKey)
            store.close()
            let raw = try SQLiteDatabase(path: file)
            try raw.execute("PRAGMA user_version = 99")
            raw.close()
        }

        #expect {
            _ = try makeStatePersistence(for: configuration)
        } throws: { error in
            guard let error = error as? StateStoreError else { return false }
            return error.code == .newerSchema && error.description.contains(file)
                && error.description.contains("99")
                && error.description.contains("up to \(SQLiteStatePersistence.schemaVersion)")
                && error.description.contains("--ephemeral")
        }
        let raw = try SQLiteDatabase(path: file)
        #expect(try raw.scalar("PRAGMA user_version", as: Int.self) == 99)
        #expect(try raw.scalar("SELECT count(*) FROM keys", as: Int.self) == 1)
    }

    @Test func anotherProgramsDatabaseIsRefusedRatherThanExtended() throws {
        let folder = SQLiteTestFolder()
        let file = folder.path("state.sqlite3")
        do {
            let raw = try SQLiteDatabase(path: file)
            try raw.execute("CREATE TABLE notes (body TEXT)")
            raw.close()
        }
        #expect {
            _ = try SQLiteStatePersistence(path: file)
        } throws: { error in
            (error as? StateStoreError)?.code == .corrupt && "\(error)".contains(file)
        }
        let raw = try SQLiteDatabase(path: file)
        #expect(try raw.scalar("SELECT count(*) FROM sqlite_schema", as: Int.self) == 1)
    }

    @Test func aFolderWhereTheFileShouldBeIsReportedAsUnreadable() throws {
        let folder = SQLiteTestFolder()
        let configuration = Self.configuration(folder)
        let file = folder.path("state/state.sqlite3")
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
        #expect {
            _ = try makeStatePersistence(for: configuration)
        } throws: { error in
            guard let error = error as? StateStoreError else { return false }
            return error.code == .unreadable && error.description.contains(file)
        }
    }

    @Test func aFreshFileIsStampedWithTheCurrentSchemaVersion() throws {
        let folder = SQLiteTestFolder()
        let file = folder.path("state.sqlite3")
        try SQLiteStatePersistence(path: file).close()
        let raw = try SQLiteDatabase(path: file)
        #expect(try raw.scalar("PRAGMA user_version", as: Int.self) == SQLiteStatePersistence.schemaVersion)
        // Reopening an up-to-date file is a no-op, not a second migration.
        _ = try SQLiteStatePersistence(path: file)
    }

    // MARK: Concurrency

    @Test func concurrentWritesFromEightThreadsAllLand() throws {
        let folder = SQLiteTestFolder()
        let store = try SQLiteStatePersistence(path: folder.path("state.sqlite3"))
        SQLiteTestFolder.onThreads(8) { thread in
            for n in 0..<20 {
                let hex = String(format: "%02x%062x", thread, n)
                try store.upsertToken(DeviceTokenRecord(token: hex, bundleId: "com.example.\(thread)",
                                                        environment: .sandbox, createdAt: Millis(n)))
                try store.upsertFault(FaultRule(id: "t\(thread)-\(n)", action: .delay(Millis(n)), createdAt: 0))
            }
        }
        let state = try store.load()
        #expect(state.tokens.count == 8 * 20)
        #expect(state.faults.count == 8 * 20)
        #expect(Set(state.faults.map(\.id)).count == 8 * 20)
    }

    @Test func twoStoresOnOneFileWaitForEachOthersLocksInsteadOfFailing() throws {
        let folder = SQLiteTestFolder()
        let path = folder.path("state.sqlite3")
        let stores = [try SQLiteStatePersistence(path: path), try SQLiteStatePersistence(path: path)]
        SQLiteTestFolder.onThreads(8) { thread in
            for n in 0..<10 {
                try stores[thread % 2].upsertFault(FaultRule(id: "t\(thread)-\(n)", action: .shutdown, createdAt: 0))
            }
        }
        #expect(try stores[0].load().faults.count == 8 * 10)
    }
}
