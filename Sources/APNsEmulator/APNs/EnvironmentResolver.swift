import APNsProtocol

/// Decides a request's environment: an Apple host named by `:authority`/`host` or SNI wins, otherwise the
/// listener's (Decision in the provider-API spec: clients that dial an IP get the listener's default).
enum EnvironmentResolver {
    static func environment(authority: String?, serverName: String?, listener: APNsEnvironment) -> APNsEnvironment {
        if let authority, let env = host(authority) { return env }
        if let serverName, let env = host(serverName) { return env }
        return listener
    }

    /// The environment an Apple host name stands for (port stripped), if it is one.
    static func host(_ text: String) -> APNsEnvironment? {
        var name = Substring(text)
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") { name = name[..<colon] }
        switch name.lowercased() {
        case "api.push.apple.com", "api-broadcast.push.apple.com", "api-manage-broadcast.push.apple.com":
            return .production
        case "api.sandbox.push.apple.com", "api.development.push.apple.com", "api-broadcast.sandbox.push.apple.com",
             "api-manage-broadcast.sandbox.push.apple.com":
            return .sandbox
        default:
            return nil
        }
    }
}
