import APNsProtocol

/// One thing that happens in a scenario, in order, with what must come out of it.
public struct Step: Sendable {
    public var kind: Kind
    /// Where the step starts (its `- ` item).
    public var mark: YAMLNode.Mark
    /// Checked after the step ran.
    public var expectations: [Expectation]
    /// Name under which the step's result is kept (`${name}`): a push's apns-id, a GetToken token, a
    /// call's id, a waited-for push's apns-id, a minted provider token.
    public var save: String?
    /// Values taken from the step's result by path (`channel: headers.apns-channel-id`).
    public var capture: [(name: String, path: String)] = []

    public enum Kind: Sendable {
        /// A push plugin call (`POST …/calls`); `body` is the call JSON.
        case call(AppRef, body: YAMLNode)
        /// A user action (`POST …/actions`); `notification` is resolved at run time (`last`, an id, `${var}`).
        case action(AppRef, name: String, fields: YAMLNode, notification: String?)
        /// `online`, `offline` or `restore`.
        case device(String, action: String)
        case install(device: String, app: YAMLNode)
        case uninstall(AppRef)
        case push(PushSpec)
        /// Wait for a push from an external sender (the user's own code) matching `match`.
        case waitForPush(WaitSpec)
        case advance(millis: Int64)
        /// Any control request (faults, token end of life, journal settings…), with its body. `mustSucceed`
        /// (the `fault` step) fails the step unless the emulator answers 2xx.
        case control(method: String, path: String, body: YAMLNode?, mustSucceed: Bool = false)
        /// A provider token signed by a sender's key, saved for a push's `authorization` header (several
        /// tokens on one connection: the per-connection rules).
        case mint(sender: String)
        /// Only expectations.
        case check
    }
}

/// An installed app: the device id and the bundle id.
public struct AppRef: Sendable, Equatable {
    public var device: String
    public var bundleId: String
    public var path: String { "/_emulator/devices/\(device)/apps/\(bundleId)" }
}

/// A push sent by a scenario's sender through the emulator's real APNs listener.
public struct PushSpec: Sendable {
    public enum Destination: Sendable {
        /// The current token of an installed app.
        case app(AppRef)
        /// A literal token or a `${variable}`.
        case token(String)
    }

    public var sender: String
    public var destination: Destination
    public var environment: APNsEnvironment
    /// Headers in order; a nil value removes a default (`apns-topic: ~`).
    public var headers: [(name: String, value: String?)]
    /// The body: JSON from a mapping, or the exact text of a string (malformed payloads on purpose).
    public var payload: [UInt8]
    public var method: String
    public var path: String?
    /// `:authority`/SNI host; nil: Apple's host of the environment.
    public var host: String?
    /// Open a new connection for this push instead of reusing the sender's.
    public var newConnection: Bool
}

/// What an external sender's push must look like to end a `wait-for-push` step.
public struct WaitSpec: Sendable {
    public var destination: PushSpec.Destination?
    public var topic: String?
    public var payloadContains: String?
    public var status: Int?
    public var timeoutMillis: Int64
}
