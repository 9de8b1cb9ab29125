/// What a handler gets with each request besides the request itself: the connection it came on, the
/// responder for its stream, and facts about the socket read that brought it. Valid for the call only.
public struct H2RequestContext: ~Copyable {
    /// The connection (loop-confined: use it only during the call or on its loop).
    public let connection: H2ServerConnection
    /// Answers this request's stream, now or later, from any thread.
    public var responder: H2Responder { H2Responder(connection: connection, streamID: streamID) }
    public let streamID: Int32
    /// When the read that brought the request began (monotonic ns), and the wall clock then (ms since the
    /// epoch): a request's latency counts from its bytes' arrival, and neither costs a clock read per request.
    public let readAt: UInt64
    public let readAtWallMillis: Int64
    /// The event loop's index in its group (for per-loop counters).
    public let loopIndex: Int
    /// Streams open on the connection, this one included.
    public let openStreams: Int

    init(connection: H2ServerConnection, streamID: Int32, loop: EventLoop, openStreams: Int) {
        self.connection = connection
        self.streamID = streamID
        self.readAt = loop.readAt
        self.readAtWallMillis = loop.readAtWallMillis
        self.loopIndex = loop.index
        self.openStreams = openStreams
    }
}
