/// A handler with its state type erased, as the server and its connections hold it: the connection calls
/// the handler through the binding `open` makes, which keeps the connection's typed state beside it.
class AnyServerHandler: @unchecked Sendable {
    // @unchecked Sendable: immutable; the subclass holds a Sendable handler.
    func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings? { nil }
    func open(_ connection: H2ServerConnection) -> OpenConnectionHandler { preconditionFailure("abstract") }
}

final class TypedServerHandler<Handler: H2ServerHandler>: AnyServerHandler, @unchecked Sendable {
    // @unchecked Sendable: `handler` is Sendable and never reassigned.
    let handler: Handler
    init(_ handler: Handler) { self.handler = handler }

    override func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings? {
        handler.initialSettings(for: connection, default: settings)
    }

    override func open(_ connection: H2ServerConnection) -> OpenConnectionHandler {
        TypedOpenConnection(handler: handler, state: handler.connectionOpened(connection))
    }
}

/// One open connection's handler and state. Loop-confined, like the connection that holds it.
class OpenConnectionHandler {
    func handle(_ request: H2Request, context: borrowing H2RequestContext) { preconditionFailure("abstract") }
    func closed(_ connection: H2ServerConnection) { preconditionFailure("abstract") }
}

final class TypedOpenConnection<Handler: H2ServerHandler>: OpenConnectionHandler {
    let handler: Handler
    let state: Handler.ConnectionState

    init(handler: Handler, state: Handler.ConnectionState) {
        self.handler = handler
        self.state = state
    }

    override func handle(_ request: H2Request, context: borrowing H2RequestContext) {
        handler.handleRequest(request, state: state, context: context)
    }

    override func closed(_ connection: H2ServerConnection) {
        handler.connectionClosed(connection, state: state)
    }
}
