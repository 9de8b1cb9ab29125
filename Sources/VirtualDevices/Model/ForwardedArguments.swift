import WireBytes

/// Arguments the delegate passes instead of the OS's. Each `nil` keeps what the OS gave; `.some(nil)` passes
/// null.
public struct ForwardedArguments: Sendable, Equatable, Encodable {
    public var deviceToken: [UInt8]??
    public var errorDescription: String??
    /// Only null can replace the notification (a changed notification is the app's own `notify` call).
    public var notificationIsNull = false
    public var actionIdentifier: String??
    public var userInfoJson: String??

    public init() {}

    /// What reaches the plugin: the callback with these arguments, or the parameter a null makes it throw for.
    func apply(to callback: OSCallback) -> Result<OSCallback, NullArgument> {
        switch callback {
        case .didRegister:
            guard let changed = deviceToken else { return .success(callback) }
            guard let bytes = changed else { return .failure(NullArgument(parameter: "deviceToken")) }
            return .success(.didRegister(token: Hex.lowercase(bytes)))
        case .didFailToRegister(let description):
            guard let changed = errorDescription else { return .success(.didFailToRegister(description: description)) }
            guard let text = changed else { return .failure(NullArgument(parameter: "errorDescription")) }
            return .success(.didFailToRegister(description: text))
        case .willPresent:
            return notificationIsNull ? .failure(NullArgument(parameter: "notification")) : .success(callback)
        case .didReceive(let n, _, let text, let launched):
            if notificationIsNull { return .failure(NullArgument(parameter: "notification")) }
            guard let changed = actionIdentifier else { return .success(callback) }
            guard let id = changed else { return .failure(NullArgument(parameter: "actionIdentifier")) }
            return .success(.didReceive(n, actionIdentifier: id, userText: text, launchedApp: launched))
        case .launchedWithRemoteNotification(let identifier, _):
            guard let changed = userInfoJson else { return .success(callback) }
            guard let json = changed else { return .failure(NullArgument(parameter: "userInfoJson")) }
            return .success(.launchedWithRemoteNotification(identifier: identifier, userInfoJson: json))
        }
    }

    struct NullArgument: Error, Equatable {
        var parameter: String
    }

    enum CodingKeys: String, CodingKey { case deviceToken, errorDescription, notification, actionIdentifier, userInfoJson }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func put(_ value: String??, _ key: CodingKeys) throws {
            guard let value else { return }
            if let value { try c.encode(value, forKey: key) } else { try c.encodeNil(forKey: key) }
        }
        try put(deviceToken.map { $0.map(Hex.lowercase) }, .deviceToken)
        try put(errorDescription, .errorDescription)
        if notificationIsNull { try c.encodeNil(forKey: .notification) }
        try put(actionIdentifier, .actionIdentifier)
        try put(userInfoJson, .userInfoJson)
    }
}
