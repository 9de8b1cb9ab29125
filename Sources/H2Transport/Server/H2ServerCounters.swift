/// What an `H2Server` refused since it started (`H2Server.counters`).
public struct H2ServerCounters: Sendable, Equatable {
    /// Streams reset because their header list passed the advertised SETTINGS_MAX_HEADER_LIST_SIZE.
    public var headerListsRefused: Int
    /// Connections closed for not sending the HTTP/2 preface within `H2ServerConfiguration.prefaceTimeout`.
    public var prefaceTimeouts: Int
    /// Connections closed as they were accepted because `H2ServerConfiguration.maxConnections` were open.
    public var connectionsRefused: Int

    public init(headerListsRefused: Int = 0, prefaceTimeouts: Int = 0, connectionsRefused: Int = 0) {
        self.headerListsRefused = headerListsRefused
        self.prefaceTimeouts = prefaceTimeouts
        self.connectionsRefused = connectionsRefused
    }
}
