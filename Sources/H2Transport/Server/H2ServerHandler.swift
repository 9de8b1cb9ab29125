/// The layer above the transport: keeps a state of its own per connection, receives complete requests and
/// answers them through the request's responder.
///
/// Called on the connection's event loop. A handler that can answer at once should call
/// `context.responder.respond` before returning (the response then joins the same write); it may also keep
/// the responder and answer later from any thread.
public protocol H2ServerHandler: Sendable {
    /// What the handler remembers about one connection: made by `connectionOpened`, held by the connection
    /// until it closes and handed to each of its requests. Loop-confined like the connection.
    associatedtype ConnectionState = Void

    /// The SETTINGS to open a new connection with, after its TLS handshake (peer certificate and SNI are
    /// known); nil keeps the server's. Called before the first SETTINGS frame is queued.
    func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings?
    /// A connection finished its TLS handshake and HTTP/2 preface: its state for the requests to come.
    func connectionOpened(_ connection: H2ServerConnection) -> ConnectionState
    /// A request arrived complete (END_STREAM seen) on a connection whose state is `state`.
    /// - Parameters:
    ///   - context: the connection, the request's responder and the read that brought it (valid for the call).
    func handleRequest(_ request: H2Request, state: ConnectionState, context: borrowing H2RequestContext)
    /// An opened connection is gone; no request of it will be delivered anymore.
    func connectionClosed(_ connection: H2ServerConnection, state: ConnectionState)
}

extension H2ServerHandler {
    public func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings? { nil }
    public func connectionClosed(_ connection: H2ServerConnection, state: ConnectionState) {}
}

extension H2ServerHandler where ConnectionState == Void {
    public func connectionOpened(_ connection: H2ServerConnection) {}
}

/// Answers one stream, from any thread; answering twice or after the stream closed does nothing.
public struct H2Responder: @unchecked Sendable {
    // @unchecked Sendable: the connection is loop-confined; this type only touches it on its loop, hopping
    // there with `execute` when called from elsewhere.
    let connection: H2ServerConnection
    public let streamID: Int32

    public func respond(_ response: H2Response) {
        let id = streamID
        Borrowed(connection).with { connection in
            if connection.isOnEventLoop {
                connection.submitResponse(streamID: id, response)
            } else {
                let box = UncheckedBox(connection)
                connection.eventLoop.execute { box.value.submitResponse(streamID: id, response) }
            }
        }
    }

    /// Resets the stream with RST_STREAM (a "reset the stream" fault).
    public func reset(_ code: H2ErrorCode = .internalError) {
        let id = streamID
        let box = UncheckedBox(connection)
        if connection.eventLoop.inEventLoop {
            connection.resetStream(id, code: code)
        } else {
            connection.eventLoop.execute { box.value.resetStream(id, code: code) }
        }
    }

    /// The event loop that owns the connection, for scheduling a delayed answer.
    public var eventLoop: EventLoop { connection.eventLoop }
    /// The connection's loop index, and whether the caller is on that loop (without a reference to the loop).
    public var loopIndex: Int { connection.loopIndex }
    public var isOnEventLoop: Bool { connection.isOnEventLoop }
}

/// Carries a loop-confined object to its own loop through `execute`.
struct UncheckedBox<T>: @unchecked Sendable {
    // @unchecked Sendable: used only to hand a value to the event loop that owns it.
    let value: T
    init(_ value: T) { self.value = value }
}
