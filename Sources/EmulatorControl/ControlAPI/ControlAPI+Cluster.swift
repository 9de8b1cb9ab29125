import APNsEmulator
import Foundation
import H2Transport
import StateStore

/// `/_emulator/cluster`: the replicas sharing this emulator's state store, and the cluster journal.
extension ControlAPI {
    /// Most cluster journal entries one call returns.
    static let maxClusterJournalLimit: Int64 = 10_000

    struct ClusterReplicaView: Encodable {
        var id: String
        /// `running`, `stopped` (it said so as it stopped) or `lost` (its reports stopped without a word).
        var state: String
        var report: ReplicaReport?
    }

    struct ClusterView: Encodable {
        var shared: Bool
        var store: String?
        var replicaId: String
        var replicas: [ClusterReplicaView]
        /// This replica's copy into the cluster journal: the newest local id copied, and the last failure.
        var journalForwardedId: Int64?
        var journalError: String?
        /// This replica's pushes for other replicas' devices, and theirs for its own.
        var deliveries: ClusterDeliveryRouter.Counters?
    }

    struct ClusterJournalEntry: Encodable {
        var position: String
        var replica: String
        var localId: Int64
        var entry: JournalEntry
    }

    struct ClusterJournalPage: Encodable {
        var entries: [ClusterJournalEntry]
        /// Pass as `after` for the next page (null when the page is empty).
        var next: String?
    }

    /// `GET /cluster` → this replica, the store, and every replica that reported since the last reset.
    func getCluster(_ request: ControlRequest) throws -> HTTP1Response {
        guard let shared = services.shared else {
            return try ControlAPIResponse.json(ClusterView(shared: false, store: nil, replicaId: services.configuration.replicaId,
                                                           replicas: []))
        }
        let replicas = try shared.replicas().map { r -> ClusterReplicaView in
            let report = try? JSONDecoder().decode(ReplicaReport.self, from: Data(r.json))
            let state = r.live ? (report?.state ?? "running") : (report?.state == "stopped" ? "stopped" : "lost")
            return ClusterReplicaView(id: r.id, state: state, report: report)
        }
        return try ControlAPIResponse.json(ClusterView(
            shared: true, store: shared.location, replicaId: shared.replicaId, replicas: replicas,
            journalForwardedId: services.replicationForwardedId, journalError: services.replicationError,
            deliveries: deliveryRouter?.counters))
    }

    /// The longest `POST /cluster/sync` waits.
    static let maxClusterSyncSeconds: Int64 = 60

    /// `POST /cluster/sync?timeoutSeconds=` → `{"version": N}` once every live replica has applied every shared
    /// change made before the call (a sender that registered through one replica then pushes through any);
    /// 503 naming the replicas still behind. Without a shared store it answers at once. It waits off the turn.
    func syncCluster(_ request: ControlRequest) throws -> HTTP1Response {
        var query = request.query
        let timeout = try query.integer("timeoutSeconds", in: 1...Self.maxClusterSyncSeconds) ?? 10
        try query.finish()
        try request.expectEmptyBody()
        do {
            return try ControlAPIResponse.json("version", try services.syncCluster(timeout: .seconds(timeout)))
        } catch let error as EmulatorServices.ClusterSyncTimeout {
            throw ControlAPIError.unavailable(error.description)
        }
    }

    /// `GET /cluster/journal?after=&limit=` → every replica's entries in the order the store received them.
    func listClusterJournal(_ request: ControlRequest) throws -> HTTP1Response {
        var query = request.query
        let after = query.string("after")
        let limit = try query.integer("limit", in: 1...Self.maxClusterJournalLimit) ?? 1_000
        try query.finish()
        if let after, !Self.isStreamPosition(after) {
            throw ControlAPIError.invalidQuery("after", mustBe: "a position from a previous page, such as 1733150000000-0",
                                               got: after)
        }
        let shared = try requireShared()
        let decoder = JSONDecoder()
        let entries = try shared.journal(after: after, limit: Int(limit)).compactMap { e -> ClusterJournalEntry? in
            guard let position = e.position, let entry = try? decoder.decode(JournalEntry.self, from: Data(e.json)) else {
                return nil
            }
            return ClusterJournalEntry(position: position, replica: e.replica, localId: e.localId, entry: entry)
        }
        return try ControlAPIResponse.json(ClusterJournalPage(entries: entries, next: entries.last?.position))
    }

    /// `GET /cluster/journal/count` → `{"count": N}`.
    func countClusterJournal(_ request: ControlRequest) throws -> HTTP1Response {
        return try ControlAPIResponse.json("count", try requireShared().journalCount())
    }

    /// `DELETE /cluster/journal` → 204: every replica's copied entries are gone (their own journals stay).
    func clearClusterJournal(_ request: ControlRequest) throws -> HTTP1Response {
        try requireShared().clearJournal()
        return ControlAPIResponse.noContent()
    }

    private func requireShared() throws -> any SharedStateStore {
        guard let shared = services.shared else {
            throw ControlAPIError.conflict("this emulator shares no state store; start the replicas with "
                                           + "--state-store redis://HOST:PORT for a cluster journal")
        }
        return shared
    }

    /// A Redis stream id: milliseconds, a dash, a sequence number.
    static func isStreamPosition(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }
}
