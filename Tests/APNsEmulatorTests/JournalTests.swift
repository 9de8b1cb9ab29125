import APNsProtocol
import H2Transport
import Testing

@testable import APNsEmulator

/// The journal's byte storage: what a hot-path record reads back as, filters, the cap, and chunk turnover.
@Suite("Journal storage")
struct JournalTests {
    static let token = String(repeating: "ab", count: 32)

    static func record(token: String = token, pathToken: String? = nil, status: Int = 200, reason: String? = nil,
                       apnsId: String = "0f5e9c2b-7a11-4d3e-9b8c-abcdef012345", topic: String? = "com.example.app",
                       authorization: String? = "bearer eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJUIn0.c2ln",
                       body: [UInt8] = Array(#"{"aps":{"alert":"héllo"}}"#.utf8)) -> Recorded {
        var headers = H2HeaderList()
        headers.append(name: ":method", value: "POST")
        headers.append(name: ":scheme", value: "https")
        headers.append(name: ":path", value: "/3/device/" + (pathToken ?? token.uppercased()))
        if let authorization { headers.append(name: "authorization", value: authorization) }
        if let topic { headers.append(name: "apns-topic", value: topic) }
        var summary = RequestSummary()
        summary.token = token
        summary.topic = topic
        return Recorded(
            record: JournalRecord(
                receivedAt: 1_700_000_000_000, connectionId: 7, environment: .production, authMode: .token,
                authRejection: nil, status: status, reason: reason, timestamp: nil, apnsId: apnsId, apnsUniqueId: nil,
                durationMicros: 12, faultId: nil),
            request: H2Request(headers: headers, body: body), summary: summary)
    }

    /// What the handler hands `Journal.append` for one request.
    struct Recorded: ~Copyable {
        var record: JournalRecord
        var request: H2Request
        var summary: RequestSummary
    }

    @Test func aRecordReadsBackAsTheEntryTheControlAPIServes() throws {
        let journal = Journal()
        var r = Self.record(status: 410, reason: "Unregistered")
        r.record.environment = .sandbox
        r.record.authMode = .certificate
        r.record.authRejection = .badCertificate
        r.record.timestamp = 1_699_999_999_000
        r.record.apnsUniqueId = "unique"
        r.record.faultId = "f1"
        r.summary.pushType = .voip
        r.summary.priority = 5
        r.summary.expiration = 0
        r.summary.collapseId = "c"
        r.summary.teamId = "TEAM"
        r.summary.keyId = "KEY"
        r.summary.warnings = ["first"]
        r.summary.authDetail = "why"
        #expect(journal.append(recorded: r) == 1)
        let e = try #require(journal.query().first)
        #expect(e.id == 1 && e.receivedAt == 1_700_000_000_000 && e.connectionId == 7 && e.environment == .sandbox)
        #expect(e.method == "POST" && e.path == "/3/device/" + Self.token.uppercased() && e.token == Self.token)
        #expect(e.topic == "com.example.app" && e.pushType == "voip" && e.priority == 5 && e.expiration == 0)
        #expect(e.collapseId == "c" && e.teamId == "TEAM" && e.keyId == "KEY")
        #expect(e.authMode == "certificate" && e.authOutcome == "BadCertificate")
        #expect(e.status == 410 && e.reason == "Unregistered" && e.timestamp == 1_699_999_999_000)
        #expect(e.apnsId == "0f5e9c2b-7a11-4d3e-9b8c-abcdef012345" && e.apnsUniqueId == "unique")
        #expect(e.durationMicros == 12 && e.faultId == "f1" && e.warnings == ["first", "auth: why"])
        #expect(e.payload == #"{"aps":{"alert":"héllo"}}"#)
        #expect(e.headers == [[":method", "POST"], [":scheme", "https"], [":path", "/3/device/" + Self.token.uppercased()],
                              ["authorization", "bearer eyJhbGciOiJFUzI1NiJ9.<redacted>"],
                              ["apns-topic", "com.example.app"]])
    }

    @Test func absentOptionalsStayAbsent() throws {
        let journal = Journal()
        var r = Self.record(topic: nil, authorization: nil, body: [])
        r.summary = RequestSummary()
        journal.append(recorded: r)
        let e = try #require(journal.query().first)
        #expect(e.topic == nil && e.pushType == nil && e.priority == nil && e.expiration == nil && e.collapseId == nil)
        #expect(e.teamId == nil && e.keyId == nil && e.reason == nil && e.timestamp == nil && e.apnsUniqueId == nil)
        #expect(e.faultId == nil && e.payload == nil && e.warnings.isEmpty && e.authOutcome == "accepted")
        #expect(e.token == Self.token, "read from the path when validation stopped before the token")
    }

    @Test func authorizationIsRedactedLikeTheStringVersion() throws {
        for value in ["bearer nodot", "", "bearer a.b.c", "bearer é.x", "bearer x.\u{301}y.z", "bearer \u{600}.x.y",
                      "bearer abcdefghij\u{e9}k.x", "bearer a.bc\u{e9}", "bearer nodot-but-\u{e9}-later", "."] {
            let journal = Journal()
            journal.append(recorded: Self.record(authorization: value))
            let e = try #require(journal.query().first)
            #expect(e.headers.first { $0[0] == "authorization" }?[1] == JournalRecord.redact(value), "\(value)")
        }
    }

    @Test func aValidatedTokenOtherThanThePathsIsKept() throws {
        let journal = Journal()
        journal.append(recorded: Self.record(token: String(repeating: "cd", count: 32), pathToken: Self.token))
        #expect(journal.query().first?.token == String(repeating: "cd", count: 32))
        #expect(journal.count(JournalFilter(token: String(repeating: "CD", count: 32))) == 1)
    }

    /// A token the path names as it reads back (lowercase) is not stored twice: the entry is smaller, and the
    /// token, its filter and the path read back the same.
    @Test func aTokenThePathNamesIsReadFromThePath() throws {
        #expect(JournalEntryEncoder.storedToken(Self.token, headers: Self.record(pathToken: Self.token).request.headers) == nil)
        #expect(JournalEntryEncoder.storedToken(Self.token, headers: Self.record().request.headers) == Self.token,
                "an uppercase path reads back lowercased, but the bytes differ: kept")
        let named = Journal(), uppercase = Journal()
        for _ in 0..<5000 {
            named.append(recorded: Self.record(pathToken: Self.token))
            uppercase.append(recorded: Self.record())
        }
        // Whole 256 KiB chunks: ~1.3 MB of entries keeping the token, a chunk or more less without it.
        #expect(named.settings.memoryBytes < uppercase.settings.memoryBytes)
        let entry = try #require(named.query().last)
        #expect(entry.token == Self.token && entry.path == "/3/device/" + Self.token)
        #expect(named.count(JournalFilter(token: Self.token.uppercased())) == 5000)
        #expect(named.count(JournalFilter(token: String(Self.token.dropLast()) + "c")) == 0)
        #expect(named.count(JournalFilter(token: String(Self.token.dropLast()))) == 0)
        #expect(named.count(JournalFilter(token: "")) == 0)
    }

    /// The stored entries are matched on bytes; the answers must be those of the filter on the entries' values,
    /// case and Unicode equivalence included (a decomposed é, the Kelvin sign that lowercases to k).
    @Test func filtersOnStoredBytesAnswerAsTheFilterOnEntryValuesDoes() {
        let journal = Journal()
        let texts = ["id-k", "ID-K", "id-\u{212A}", "caf\u{E9}", "cafe\u{301}", "CAF\u{C9}", "", "id-kk"]
        let tokens = [Self.token, Self.token.uppercased(), String(repeating: "ef", count: 32)]
        for (i, text) in texts.enumerated() {
            journal.append(recorded: Self.record(token: tokens[i % 3], pathToken: i % 2 == 0 ? tokens[i % 3] : nil,
                                                 status: 400, reason: text, apnsId: text, topic: text))
        }
        let all = journal.query()
        #expect(all.count == texts.count)
        var filters: [JournalFilter] = []
        for text in texts + ["id-K", "CAFE\u{301}", "caf"] {
            filters += [JournalFilter(topic: text), JournalFilter(apnsId: text), JournalFilter(reason: text)]
        }
        filters += tokens.map { JournalFilter(token: $0) } + [JournalFilter(token: Self.token.uppercased()), JournalFilter(token: "ab")]
        for filter in filters {
            #expect(journal.query(filter).map(\.id) == all.filter(filter.matches).map(\.id), "\(filter)")
            #expect(journal.count(filter) == all.filter(filter.matches).count, "\(filter)")
        }
    }

    @Test func filtersWorkOnStoredRecords() {
        let journal = Journal()
        let other = String(repeating: "ef", count: 32)
        journal.append(recorded: Self.record())
        journal.append(recorded: Self.record(token: other, status: 400, reason: "BadDeviceToken", apnsId: "x-id"))
        journal.append(recorded: Self.record(topic: "com.example.other"))
        #expect(journal.query(JournalFilter(token: Self.token.uppercased())).map(\.id) == [1, 3])
        #expect(journal.query(JournalFilter(token: other)).map(\.id) == [2])
        #expect(journal.query(JournalFilter(apnsId: "X-ID")).map(\.id) == [2])
        #expect(journal.query(JournalFilter(status: 400)).map(\.id) == [2])
        #expect(journal.query(JournalFilter(reason: "BadDeviceToken")).map(\.id) == [2])
        #expect(journal.query(JournalFilter(topic: "com.example.other")).map(\.id) == [3])
        #expect(journal.query(JournalFilter(afterId: 1)).map(\.id) == [2, 3])
        #expect(journal.query(JournalFilter(limit: 2)).map(\.id) == [2, 3])
        #expect(journal.query(JournalFilter(limit: 0)).isEmpty)
        #expect(journal.count(JournalFilter(token: Self.token, topic: "com.example.app")) == 1)
    }

    @Test func theCapKeepsTheNewestAcrossManyChunks() {
        let journal = Journal(capacity: 1000)
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<5000 { journal.append(recorded: Self.record(body: body)) }
        let settings = journal.settings
        #expect(settings.enabled && settings.capacity == 1000 && settings.size == 1000 && settings.dropped == 4000)
        let ids = journal.query().map(\.id)
        #expect(ids.first == 4001 && ids.last == 5000 && ids.count == 1000)
        journal.configure(capacity: 10)
        #expect(journal.query().map(\.id) == Array(4991...5000))
        #expect(journal.settings.dropped == 4990)
    }

    @Test func pollsForWhatCameAfterAnIdOrForTheNewestFewAnswerAsAFullScanWould() {
        // A full journal over several chunks, the oldest dropped, whole entries among the records: the reads that
        // start at the end of the log must find what a scan of all of it finds.
        let journal = Journal(capacity: 3000)
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 300)
        for i in 0..<5000 {
            if i % 500 == 7 {
                journal.append(JournalEntry(id: 0, receivedAt: 0, connectionId: 1, environment: .sandbox, method: "POST",
                                            path: "/3/device/x", status: 400, apnsId: "whole-\(i)"))
            } else {
                journal.append(recorded: Self.record(status: i % 3 == 0 ? 400 : 200, body: body))
            }
        }
        let all = journal.query()
        #expect(all.count == 3000 && all.first?.id == 2001 && all.last?.id == 5000)
        #expect(journal.settings.memoryBytes >= 3 * EntryArena.chunkSize, "the entries span several chunks")
        for afterId: Int64? in [nil, 0, 2000, 2001, 3500, 4990, 4999, 5000, 9000] {
            let after = all.filter { entry in afterId.map { entry.id > $0 } ?? true }
            for limit: Int? in [nil, 0, 1, 5, 200, 2999, 3000, 4000] {
                let filter = JournalFilter(afterId: afterId, limit: limit)
                #expect(journal.query(filter).map(\.id) == after.suffix(limit ?? .max).map(\.id),
                        "after \(String(describing: afterId)), limit \(String(describing: limit))")
                #expect(journal.count(filter) == after.count)
            }
            // With a filter on content the newest matches are found however far back they are.
            let refused = after.filter { $0.status == 400 }
            for limit in [0, 1, 50, 400, 2999, 4000] {
                #expect(journal.query(JournalFilter(status: 400, afterId: afterId, limit: limit)).map(\.id) == refused.suffix(limit).map(\.id),
                        "status 400 after \(String(describing: afterId)), limit \(limit)")
            }
        }
        // A whole entry (id 4508) among the ones read from the end comes back as itself.
        #expect(journal.query(JournalFilter(afterId: 4507)).first?.apnsId == "whole-4507")
        #expect(journal.query(JournalFilter(limit: 493)).first?.apnsId == "whole-4507")
        #expect(journal.query(JournalFilter(limit: -1)).count == 3000, "a negative limit is no limit")
        #expect(journal.count() == 3000 && journal.count(JournalFilter(limit: 5)) == 3000)
        // Cleared, the journal answers from nothing, and then from what came after (ids go on from 5001).
        journal.clear()
        #expect(journal.query(JournalFilter(limit: 10)).isEmpty && journal.count(JournalFilter(afterId: 4000)) == 0)
        journal.append(recorded: Self.record())
        journal.append(recorded: Self.record())
        #expect(journal.query(JournalFilter(limit: 10)).map(\.id) == [5001, 5002])
        #expect(journal.query(JournalFilter(afterId: 4000, limit: 1)).map(\.id) == [5002])
        #expect(journal.query(JournalFilter(afterId: 5001)).map(\.id) == [5002])
        #expect(journal.count(JournalFilter(afterId: 5001)) == 1 && journal.count() == 2)
    }

    @Test func anOversizedBodyAndHeaderValueAreCutAndTheEntrySaysSo() throws {
        let journal = Journal(capacity: 10)
        let big = [UInt8](repeating: UInt8(ascii: "b"), count: EntryArena.chunkSize + 10)
        var recorded = Self.record(body: big)
        recorded.request.headers.append(name: "x-long", value: String(repeating: "v", count: 10_000))
        journal.append(recorded: recorded)
        journal.append(recorded: Self.record())
        let entries = journal.query()
        #expect(entries.map(\.id) == [1, 2])
        let cut = try #require(entries.first)
        #expect(cut.payload?.utf8.count == JournalEntryLimits.bodyBytes)
        #expect(cut.headers.first { $0.first == "x-long" }?.last?.utf8.count == JournalEntryLimits.valueBytes)
        #expect(cut.warnings.contains("journal kept the first 4096 of the 10000 bytes of header 'x-long'"), "\(cut.warnings)")
        #expect(cut.warnings.contains("journal kept the first 16384 of the \(big.count) body bytes"), "\(cut.warnings)")
        #expect(entries.last?.warnings == [])
    }

    @Test func theJournalsMemoryIsBoundedInBytesAsWellAsEntries() {
        let journal = Journal(capacity: 100_000)
        // Two bodies in turn, so no entry shares the one before's tail: ~16.6 KiB an entry, ~330 MiB for all.
        let bodies = [UInt8(ascii: "a"), UInt8(ascii: "b")].map { [UInt8](repeating: $0, count: JournalEntryLimits.bodyBytes) }
        for i in 0..<20_000 { journal.append(recorded: Self.record(body: bodies[i % 2])) }
        let settings = journal.settings
        #expect(settings.memoryLimitBytes == JournalEntryLimits.memoryBytes)
        #expect(settings.memoryBytes <= JournalEntryLimits.memoryBytes + 3 * EntryArena.chunkSize, "\(settings)")
        #expect(settings.size < 20_000 && settings.size > 10_000 && settings.dropped == Int64(20_000 - settings.size))
        #expect(journal.query().last?.id == 20_000)
    }

    @Test func largerEntriesAfterAFullJournalOfSmallOnesStillKeepItWithinItsBytes() {
        let journal = Journal(capacity: 30_000)
        for _ in 0..<30_000 { journal.append(recorded: Self.record()) }
        #expect(journal.settings.size == 30_000)
        let bodies = [UInt8(ascii: "a"), UInt8(ascii: "b")].map { [UInt8](repeating: $0, count: JournalEntryLimits.bodyBytes) }
        for i in 0..<20_000 { journal.append(recorded: Self.record(body: bodies[i % 2])) }
        let settings = journal.settings
        #expect(settings.memoryBytes <= JournalEntryLimits.memoryBytes + 3 * EntryArena.chunkSize, "\(settings)")
        #expect(settings.size < 20_000, "the small entries went first, then large ones")
    }

    @Test func wholeEntriesAndRecordsShareOrderCapAndClear() {
        let journal = Journal(capacity: 3)
        journal.append(JournalEntry(id: 0, receivedAt: 0, connectionId: 1, environment: .sandbox, method: "POST",
                                    path: "/3/device/x", status: 200, apnsId: "a"))
        journal.append(recorded: Self.record())
        journal.append(JournalEntry(id: 0, receivedAt: 0, connectionId: 1, environment: .sandbox, method: "POST",
                                    path: "/3/device/y", status: 400, apnsId: "b"))
        journal.append(recorded: Self.record())
        #expect(journal.query().map(\.id) == [2, 3, 4])
        #expect(journal.query(JournalFilter(status: 400)).map(\.apnsId) == ["b"])
        journal.clear()
        #expect(journal.query().isEmpty && journal.settings.size == 0)
        #expect(journal.append(recorded: Self.record()) == 5)
    }

    @Test func aRepeatedRequestIsStoredOnceAndEveryEntryReadsBackWhole() throws {
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2000)
        let single = Journal()
        single.append(recorded: Self.record(body: body))
        let journal = Journal(capacity: 1000)
        for _ in 0..<1000 { journal.append(recorded: Self.record(body: body)) }
        // In full, a thousand 2 KB entries take eight 256 KiB chunks; sharing their tail, one.
        #expect(journal.settings.memoryBytes == single.settings.memoryBytes)
        let entries = journal.query()
        #expect(entries.count == 1000)
        let first = try #require(single.query().first)
        for e in entries {
            #expect(e.headers == first.headers && e.payload == first.payload && e.token == Self.token)
        }
        #expect(journal.count(JournalFilter(token: Self.token)) == 1000, "the token filter reads the shared path")
    }

    @Test func sharingStartsAgainInEachChunkAndSurvivesTheOldestChunksRecycling() throws {
        // Entries of ~1.3 KB in full: a chunk begins with one full tail and fills with references; once the
        // cap drops whole chunks they come back (same address) for new entries, which must not point into
        // what they held before.
        let journal = Journal(capacity: 3000)
        for i in 0..<20_000 {
            let body = Array(#"{"aps":{"alert":"\#(i / 4000)"}, "pad":"\#(String(repeating: "p", count: 1200))"}"#.utf8)
            journal.append(recorded: Self.record(body: body))
        }
        let entries = journal.query()
        #expect(entries.count == 3000 && entries.first?.id == 17_001)
        for e in entries {
            #expect(e.payload?.hasPrefix(#"{"aps":{"alert":"4"}"#) == true && e.headers.count == 5)
        }
    }

    @Test func anEntryDifferingFromThePreviousKeepsItsOwnTail() throws {
        let journal = Journal()
        journal.append(recorded: Self.record())
        journal.append(recorded: Self.record(topic: "com.example.other"))
        journal.append(recorded: Self.record())
        journal.append(recorded: Self.record(body: []))
        let entries = journal.query()
        #expect(entries.map { $0.headers.first { $0[0] == "apns-topic" }?[1] }
                == ["com.example.app", "com.example.other", "com.example.app", "com.example.app"])
        #expect(entries.map(\.payload) == [#"{"aps":{"alert":"héllo"}}"#, #"{"aps":{"alert":"héllo"}}"#,
                                           #"{"aps":{"alert":"héllo"}}"#, nil])
        #expect(journal.query(JournalFilter(topic: "com.example.app", limit: 1)).map(\.id) == [4])
    }

    /// Tokens that differ only after the dot redaction cuts at are stored the same, so they share one tail
    /// although the requests' bytes differ (a sender refreshing its token every 20 minutes).
    @Test func tokensDifferingOnlyPastTheRedactedDotShareATail() throws {
        let single = Journal()
        single.append(recorded: Self.record(authorization: "bearer eyJhbGciOiJFUzI1NiJ9.first.c2ln"))
        let journal = Journal(capacity: 1000)
        for i in 0..<1000 {
            journal.append(recorded: Self.record(authorization: "bearer eyJhbGciOiJFUzI1NiJ9.\(i % 2 == 0 ? "first" : "second").c2ln"))
        }
        #expect(journal.settings.memoryBytes == single.settings.memoryBytes)
        let expected = try #require(single.query().first).headers
        #expect(journal.query().allSatisfy { $0.headers == expected })
    }

    /// Pushes to many tokens in turn (a fan-out) differ in their path alone: they share one tail, and each entry
    /// reads back its own path, token and headers.
    @Test func pushesToManyTokensShareATailAndKeepTheirOwnPaths() throws {
        let tokens = (0..<20).map { String(format: "%064x", $0 + 1) }
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2000)
        let single = Journal()
        single.append(recorded: Self.record(token: tokens[0], pathToken: tokens[0], body: body))
        let journal = Journal(capacity: 1000)
        for i in 0..<1000 { journal.append(recorded: Self.record(token: tokens[i % 20], pathToken: tokens[i % 20], body: body)) }
        // Whole, a thousand 2 KB entries take nine 256 KiB chunks; sharing the tail, each keeping its path, two.
        #expect(journal.settings.memoryBytes <= 2 * single.settings.memoryBytes)
        let entries = journal.query()
        let first = try #require(single.query().first)
        for (i, e) in entries.enumerated() {
            let token = tokens[i % 20]
            #expect(e.token == token && e.path == "/3/device/" + token)
            #expect(e.headers == first.headers.map { $0[0] == ":path" ? [":path", "/3/device/" + token] : $0 })
            #expect(e.payload == first.payload)
        }
        #expect(journal.count(JournalFilter(token: tokens[3])) == 50)
        #expect(journal.count(JournalFilter(token: tokens[3].uppercased())) == 50)
    }

    /// Alternating requests never take each other's tail, whichever way the previous one was stored.
    @Test func alternatingRequestsEachReadBackTheirOwnFields() {
        let journal = Journal()
        let topics = ["com.example.app", "com.example.app", "com.example.other", "com.example.app", "com.example.other",
                      "com.example.other", "com.example.app"]
        for t in topics { journal.append(recorded: Self.record(topic: t)) }
        #expect(journal.query().map { $0.headers.first { $0[0] == "apns-topic" }?[1] } == topics)
    }

    @Test func nothingIsRecordedWhileOff() {
        let journal = Journal(enabled: false)
        #expect(journal.append(recorded: Self.record()) == 0)
        #expect(journal.settings.size == 0)
    }
}

extension Journal {
    @discardableResult
    func append(recorded r: borrowing JournalTests.Recorded) -> Int64 { append(r.record, request: r.request, summary: r.summary) }
}

