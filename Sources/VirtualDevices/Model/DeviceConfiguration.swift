/// A virtual device as created: what kind of machine it is and how it is connected.
public struct DeviceConfiguration: Sendable, Codable, Equatable {
    /// Unique id (chosen by the caller, or `device-N`).
    public var id: String
    public var name: String
    public var platform: Platform
    public var osVersion: String
    /// Reachable by APNs: offline devices get pushes held by the delivery queue.
    public var online: Bool
    /// Background pushes a suspended app may receive per rolling hour; 0 = unlimited. Apple: "two or three
    /// an hour"; the default is 3. At most `maxBackgroundBudgetPerHour`.
    public var backgroundBudgetPerHour: Int
    /// A Focus (or Do Not Disturb) is on: only time-sensitive and critical notifications light the screen and
    /// sound.
    public var focus: Bool
    /// The ring/silent switch is on silent: only critical alerts sound.
    public var muted: Bool
    /// The largest budget the control API accepts (the budget's rolling hour keeps this many wake times).
    public static let maxBackgroundBudgetPerHour = 1000

    public init(id: String, name: String = "", platform: Platform = .iOS, osVersion: String? = nil,
                online: Bool = true, backgroundBudgetPerHour: Int = 3, focus: Bool = false, muted: Bool = false) {
        self.focus = focus
        self.muted = muted
        self.id = id
        self.name = name.isEmpty ? id : name
        self.platform = platform
        self.osVersion = osVersion ?? (platform == .iOS ? "18.0" : "15.0")
        self.online = online
        self.backgroundBudgetPerHour = backgroundBudgetPerHour
    }
}
