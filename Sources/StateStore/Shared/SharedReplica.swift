/// A replica as the store knows it: what it last reported and whether it is still reporting.
public struct SharedReplica: Sendable, Equatable {
    public var id: String
    /// The replica's own report (JSON), as it last wrote it.
    public var json: [UInt8]
    /// False once it has missed its heartbeats for longer than their time to live (stopped or dead).
    public var live: Bool

    public init(id: String, json: [UInt8], live: Bool) {
        self.id = id
        self.json = json
        self.live = live
    }
}
