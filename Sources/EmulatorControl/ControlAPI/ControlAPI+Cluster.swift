import APNsEmulator
import Foundation
import H2Transport
import StateStore

/// `/_emulator/cluster`: the replicas sharing this emulator's state store, and the cluster journal.
extension ControlAPI {
    /// Most cluster journal entries one call returns (each may hold up to a full request: pages stay tens of MB).
    static let maxClusterJournalLimit: Int64 = 1_000

    struct ClusterReplicaView: Encodable {
        var id: String
        /// `running`, `stopped` (it said so as it stopped) or `lost` (its reports stopped without a word).
        var state: String
        var report: ReplicaReport?
    }

    /// Every replica's counters as it last reported them, added up (stopped and lost replicas' final ones too).
    struct ClusterTotals: Encodable, Equatable {
        var answered: UInt64 = 0
        var accepted: UInt64 = 0
        var running = 0
        var stopped = 0
        var lost = 0
    }

    struct ClusterView: Encodable {
        var shared: Bool
        var store: String?
        var replicaId: String
        var replicas: [ClusterReplicaView]
        var totals: ClusterTotals?
        /// This replica's copy into the cluster journal: the newest local id copied, and the last failure.
        var journalForwardedId: Int64?
        var journalError: String?
        /// Local journal entries dropped (capacity, memory) before this replica could copy them.
        var journalMissed: Int64?
        /// This replica's pushes for other replicas' devices, and theirs for its own.
        var deliveries: ClusterDeliveryRouter.Counters?
    }

    /// `GET /cluster` → this replica, the store, and every replica that reported (a reset forgets the lost ones).
    func getCluster(_ request: ControlRequest) throws -> HTTP1Response {
        guard let shared = services.shared else {
            return try ControlAPIResponse.json(ClusterView(shared: false, store: nil, replicaId: services.configuration.replicaId,
                                                           replicas: []))
        }
        let replicas = try clusterReplicas(shared)
        return try ControlAPIResponse.json(ClusterView(
            shared: true, store: shared.location, replicaId: shared.replicaId, replicas: replicas,
            totals: Self.totals(replicas),
            journalForwardedId: services.replicationForwardedId, journalError: services.replicationError,
            journalMissed: services.replicationMissed,
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
        let limit = try query.integer("limit", in: 1...Self.maxClusterJournalLimit) ?? 100
        try query.finish()
        if let after, !ClusterJournalPage.isPosition(after) {
            throw ControlAPIError.invalidQuery("after", mustBe: "a position from a previous page, such as 1733150000000-0/12",
                                               got: after)
        }
        _ = try requireShared()
        return try ControlAPIResponse.json(try services.clusterJournal(after: after, limit: Int(limit)))
    }

    /// Where a device lives, as `GET /cluster/devices/{id}` answers.
    struct ClusterDeviceView: Encodable {
        var id: String
        var replica: String
        var state: String
        /// Its replica's endpoints and control API: the device's own routes are there.
        var endpoints: EmulatorEndpoints?
        var controlURL: String?
    }

    /// `GET /cluster/devices/{id}` → the live replica holding the virtual device, its endpoints and control URL,
    /// and the device as that replica shows it (`device`); 404 when no live replica holds it, 503 when one that
    /// did not answer might.
    func findClusterDevice(_ request: ControlRequest) throws -> HTTP1Response {
        let id = request.parameter("deviceId")
        let shared = try requireShared()
        let (peer, device) = try locateDevice(id, authorization: request.http.header("authorization"))
        let holder = try clusterReplicas(shared).first(where: { $0.id == peer.id })
        let view = ClusterDeviceView(id: id, replica: peer.id, state: holder?.state ?? "running",
                                     endpoints: holder?.report?.endpoints,
                                     controlURL: holder?.report?.controlURL ?? peer.controlURL)
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(view)) as? [String: Any] ?? [:]
        object["device"] = device
        return try Self.rawJSON(object)
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

    func clusterReplicas(_ shared: any SharedStateStore) throws -> [ClusterReplicaView] {
        Self.views(try shared.replicas())
    }

    private static func views(_ replicas: [SharedReplica]) -> [ClusterReplicaView] {
        replicas.map { r -> ClusterReplicaView in
            let report = try? JSONDecoder().decode(ReplicaReport.self, from: Data(r.json))
            let state = r.live ? (report?.state ?? "running") : (report?.state == "stopped" ? "stopped" : "lost")
            return ClusterReplicaView(id: r.id, state: state, report: report)
        }
    }

    static func totals(_ replicas: [ClusterReplicaView]) -> ClusterTotals {
        var t = ClusterTotals()
        for r in replicas {
            t.answered += r.report?.answered ?? 0
            t.accepted += r.report?.accepted ?? 0
            switch r.state {
            case "running": t.running += 1
            case "stopped": t.stopped += 1
            default: t.lost += 1
            }
        }
        return t
    }

    /// `/metrics` lines for the cluster, with a shared store (none without): what every replica last reported,
    /// so one scrape of any replica shows the whole. Read from this replica's last beat, so a scrape never waits
    /// on Redis; none before the first.
    func clusterPrometheusLines() -> [String] {
        guard let cluster = services.lastCluster else { return [] }
        let t = Self.totals(Self.views(cluster.replicas))
        var lines = ["# HELP apns_emulator_cluster_replicas Replicas sharing this emulator's state store, by state.",
                     "# TYPE apns_emulator_cluster_replicas gauge"]
        for (state, n) in [("running", t.running), ("stopped", t.stopped), ("lost", t.lost)] {
            lines.append(#"apns_emulator_cluster_replicas{state="\#(state)"} \#(n)"#)
        }
        // Gauges: sums of last reports, which fall when a replica restarts; every replica shows the same sum, so
        // take one replica's (max), not the sum over scrapes.
        lines += ["# HELP apns_emulator_cluster_requests APNs requests answered by every replica, as each last reported.",
                  "# TYPE apns_emulator_cluster_requests gauge",
                  "apns_emulator_cluster_requests \(t.answered)",
                  "# HELP apns_emulator_cluster_accepted Of those, the ones answered 200.",
                  "# TYPE apns_emulator_cluster_accepted gauge",
                  "apns_emulator_cluster_accepted \(t.accepted)"]
        lines += ["# HELP apns_emulator_cluster_journal_entries Entries in the cluster journal.",
                  "# TYPE apns_emulator_cluster_journal_entries gauge",
                  "apns_emulator_cluster_journal_entries \(cluster.journalCount)"]
        return lines
    }

    func requireShared() throws -> any SharedStateStore {
        guard let shared = services.shared else {
            throw ControlAPIError.conflict("this emulator shares no state store; start the replicas with "
                                           + "--state-store redis://HOST:PORT for a cluster journal")
        }
        return shared
    }

}
