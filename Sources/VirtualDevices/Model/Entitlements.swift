/// The signed entitlements of an installed app that change what pushes can do.
public struct Entitlements: Sendable, Codable, Equatable {
    /// `aps-environment` is present: without it GetToken and GetProviderEnvironment fail with
    /// FailedPrecondition.
    public var push: Bool
    /// `com.apple.developer.usernotifications.time-sensitive`: without it TimeSensitive arrives as Passive.
    public var timeSensitive: Bool
    /// `com.apple.developer.usernotifications.critical-alerts`: without it Critical arrives as Active.
    public var criticalAlerts: Bool

    public init(push: Bool = true, timeSensitive: Bool = false, criticalAlerts: Bool = false) {
        self.push = push
        self.timeSensitive = timeSensitive
        self.criticalAlerts = criticalAlerts
    }
}
