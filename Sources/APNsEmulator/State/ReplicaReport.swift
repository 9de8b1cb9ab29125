import APNsProtocol

/// What a replica reports about itself in the shared store, once a second (`GET /_emulator/cluster`).
public struct ReplicaReport: Sendable, Codable, Equatable {
    public var id: String
    /// One run of the replica: a restart under the same id is a new incarnation.
    public var incarnation: String
    /// `running`, or `stopped` once it shut down cleanly; a replica that stops reporting without saying so
    /// is listed as `lost`.
    public var state: String
    public var startedAt: Millis
    public var lastSeenAt: Millis
    public var endpoints: EmulatorEndpoints?
    /// Its control API as other replicas reach it (`--advertise-host`), for merged reads and forwarded device calls.
    public var controlURL: String?
    /// APNs requests answered, and those answered 200.
    public var answered: UInt64
    public var accepted: UInt64
    /// The newest entry of its own journal, and the newest it has copied into the cluster journal.
    public var journalNewestId: Int64
    public var journalForwardedId: Int64
    /// Its virtual devices: how many, and the ids of up to `maxDeviceIds` of them (sorted), so a device can be
    /// found from any replica.
    public var devices: Int = 0
    public var deviceIds: [String] = []

    /// Device ids a report lists beyond this are only counted (a report is rewritten every second).
    public static let maxDeviceIds = 1_000
}
