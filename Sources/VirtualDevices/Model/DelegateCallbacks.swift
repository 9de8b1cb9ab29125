/// The OS callbacks an app's delegate passes to the push plugin, named by the forwarding method each one calls.
public enum DelegateCallback: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    /// `didRegisterForRemoteNotificationsWithDeviceToken` → NotifyDidRegisterForRemoteNotifications.
    case didRegisterForRemoteNotifications
    /// `didFailToRegisterForRemoteNotificationsWithError` → NotifyDidFailToRegister.
    case didFailToRegister
    /// `userNotificationCenter(_:willPresent:…)` → NotifyWillPresentNotification.
    case willPresentNotification
    /// `userNotificationCenter(_:didReceive:…)` → NotifyDidReceiveResponse.
    case didReceiveResponse
    /// The launch notification seen at app start → NotifyColdStartNotification.
    case coldStartNotification

    init(_ callback: OSCallback) {
        switch callback {
        case .didRegister: self = .didRegisterForRemoteNotifications
        case .didFailToRegister: self = .didFailToRegister
        case .willPresent: self = .willPresentNotification
        case .didReceive: self = .didReceiveResponse
        case .launchedWithRemoteNotification: self = .coldStartNotification
        }
    }

    /// The plugin method the callback calls.
    var method: CallRecord.Call {
        switch self {
        case .didRegisterForRemoteNotifications: return .notifyDidRegisterForRemoteNotifications
        case .didFailToRegister: return .notifyDidFailToRegister
        case .willPresentNotification: return .notifyWillPresentNotification
        case .didReceiveResponse: return .notifyDidReceiveResponse
        case .coldStartNotification: return .notifyColdStartNotification
        }
    }

    /// The arguments its method takes (what `ForwardedArguments` may change).
    public var arguments: [String] {
        switch self {
        case .didRegisterForRemoteNotifications: return ["deviceToken"]
        case .didFailToRegister: return ["errorDescription"]
        case .willPresentNotification: return ["notification"]
        case .didReceiveResponse: return ["notification", "actionIdentifier"]
        case .coldStartNotification: return ["userInfoJson"]
        }
    }
}

/// What the app's delegate does with one callback: forward it (the default), drop it, forward it later, or
/// forward it with changed arguments (a null one makes the plugin throw).
public struct CallbackScript: Sendable, Equatable, Encodable {
    public var drop: Bool
    /// Forwarded this long after the OS called the delegate (0: at once).
    public var delayMillis: Int64
    public var arguments: ForwardedArguments

    public init(drop: Bool = false, delayMillis: Int64 = 0, arguments: ForwardedArguments = ForwardedArguments()) {
        self.drop = drop
        self.delayMillis = delayMillis
        self.arguments = arguments
    }

    enum CodingKeys: String, CodingKey { case drop, delayMs, with }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if drop { try c.encode(true, forKey: .drop) }
        if delayMillis > 0 { try c.encode(delayMillis, forKey: .delayMs) }
        if arguments != ForwardedArguments() { try c.encode(arguments, forKey: .with) }
    }
}

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
        case .didRegister(let token):
            guard let changed = deviceToken else { return .success(callback) }
            guard let bytes = changed else { return .failure(NullArgument(parameter: "deviceToken")) }
            return .success(.didRegister(token: PushPlugin.lowercaseHex(bytes)))
        case .didFailToRegister(let description):
            guard let changed = errorDescription else { return .success(.didFailToRegister(description: description)) }
            guard let text = changed else { return .failure(NullArgument(parameter: "errorDescription")) }
            return .success(.didFailToRegister(description: text))
        case .willPresent:
            return notificationIsNull ? .failure(NullArgument(parameter: "notification")) : .success(callback)
        case .didReceive(let n, let action, let text, let launched):
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
        try put(deviceToken.map { $0.map(PushPlugin.lowercaseHex) }, .deviceToken)
        try put(errorDescription, .errorDescription)
        if notificationIsNull { try c.encodeNil(forKey: .notification) }
        try put(actionIdentifier, .actionIdentifier)
        try put(userInfoJson, .userInfoJson)
    }
}
