import APNsEmulator
import Foundation
import APNsProtocol
import H2Transport

/// `/_emulator/journal`: every APNs request the emulator answered, for tests to verify against.
extension ControlAPI {
    /// Largest journal capacity accepted (each entry holds headers and payload, so this is already gigabytes).
    static let maxJournalCapacity: Int64 = 10_000_000

    /// `GET /journal?token=&topic=&apnsId=&status=&reason=&after=&limit=&waitSeconds=` → `{"entries": [...]}`,
    /// oldest first; with `limit`, the newest `limit` matches. With `waitSeconds`, an answer that would be empty
    /// waits up to that long for a matching entry (a long-poll: the dashboard's live journal). It takes no turn.
    func listJournal(_ request: ControlRequest) throws -> HTTP1Response {
        var query = request.query
        let wait = try query.integer("waitSeconds", in: 0...Self.maxJournalWaitSeconds)
        let filter = try journalFilter(request, extra: ["waitSeconds"])
        var entries = services.journal.query(filter)
        if entries.isEmpty, let wait, wait > 0 {
            let deadline = ContinuousClock.now + .seconds(wait)
            var seen = services.journal.newestId
            // Queries again only when something was appended; a short sleep between looks at the newest id.
            while entries.isEmpty, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                let newest = services.journal.newestId
                if newest != seen {
                    seen = newest
                    entries = services.journal.query(filter)
                }
            }
        }
        return ControlAPIResponse.bytes(JournalEntry.listingJSON(entries))
    }

    /// The longest a journal long-poll waits.
    static let maxJournalWaitSeconds: Int64 = 30

    /// `GET /journal/count` (same filters) → `{"count": N}`; `limit` caps the count.
    func countJournal(_ request: ControlRequest) throws -> HTTP1Response {
        let filter = try journalFilter(request)
        var count = services.journal.count(filter)
        if let limit = filter.limit { count = min(count, limit) }
        return try ControlAPIResponse.json("count", count)
    }

    /// `DELETE /journal` → 204. Entry ids keep increasing, so `after=` pollers are not confused.
    func clearJournal(_ request: ControlRequest) throws -> HTTP1Response {
        services.journal.clear()
        return ControlAPIResponse.noContent()
    }

    /// `GET /journal/settings` → `{"enabled", "capacity", "size", "dropped", "memoryBytes", "memoryLimitBytes"}`.
    func getJournalSettings(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json(services.journal.settings)
    }

    /// `PUT /journal/settings {"enabled"?, "capacity"?}` → 200 with the settings now in force. Omitted
    /// fields stay as they are; a smaller capacity keeps the newest entries.
    func updateJournalSettings(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let enabled = body.bool("enabled")
        let capacity = body.int64("capacity")
        try body.finish()
        if let capacity, !(1...Self.maxJournalCapacity).contains(capacity) {
            throw ControlAPIError.invalid("capacity", mustBe: "an integer from 1 to \(Self.maxJournalCapacity)",
                                          got: "\(capacity)")
        }
        services.journal.configure(enabled: enabled, capacity: capacity.map { Int($0) })
        return try ControlAPIResponse.json(services.journal.settings)
    }

    /// Reason strings a journal entry can hold: Apple's, plus the undocumented spelling a policy may send.
    static let journalReasonStrings: Set<String> = {
        var undocumented = ValidationPolicy()
        undocumented.useUndocumentedBadEnvironmentKeySpelling = true
        return Set(APNsReason.allCases.flatMap { [$0.rawValue, undocumented.wireString(for: $0)] })
    }()

    /// The filter the query asks for; every parameter is optional and they combine with AND.
    private func journalFilter(_ request: ControlRequest, extra: Set<String> = []) throws -> JournalFilter {
        var query = request.query
        let token = query.string("token")
        let topic = query.string("topic")
        let apnsId = query.string("apnsId")
        let status = try query.integer("status", in: 0...599)
        let reason = query.string("reason")
        let after = try query.integer("after", in: 0...Int64.max)
        let limit = try query.integer("limit", in: 0...Int64(Int32.max))
        // Read last so the names a bad parameter's error lists start with the filters.
        for name in extra.sorted() { _ = query.string(name) }
        try query.finish()
        if let reason, !Self.journalReasonStrings.contains(reason) {
            throw ControlAPIError.invalidQuery(
                "reason", mustBe: "an APNs reason string such as BadDeviceToken (exact case)", got: reason)
        }
        return JournalFilter(token: token, topic: topic, apnsId: apnsId, status: status.map { Int($0) },
                             reason: reason, afterId: after, limit: limit.map { Int($0) })
    }
}
