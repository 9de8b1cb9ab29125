import APNsProtocol

/// One scenario: devices and apps, senders, a clock, and ordered steps with expectations.
public struct Scenario: Sendable {
    public var name: String
    public var tags: [String]
    public var file: String
    /// Where the scenario's document starts.
    public var mark: YAMLNode.Mark
    public var clock: ClockMode
    public var devices: [DeviceSpec]
    public var senders: [String: SenderSpec]
    public var steps: [Step]
    /// Settings of the in-process emulator the scenario needs (rate limits, delays, realism).
    public var emulator: EmulatorOptions
    /// Files uploaded to `/_emulator/files/{name}` before the steps (attachments for service extensions).
    public var files: [(name: String, bytes: [UInt8])] = []

    /// What a scenario may change in its own emulator; with `--emulator URL` only the defaults are possible.
    public struct EmulatorOptions: Sendable, Equatable {
        public var tokenRateLimit: Int?
        public var tokenRateWindowMillis: Int64?
        public var lowPriorityDelayMillis: Int64?
        public var maximumChannelsPerApp: Int?
        /// `documented` or `strict`.
        public var realism: String?

        public var isDefault: Bool { self == EmulatorOptions() }
        public init() {}
    }

    public enum ClockMode: String, Sendable, CaseIterable {
        /// Frozen at the real time when the scenario starts; moves only through `advance` steps.
        case manual
        /// Real time (no `advance` steps allowed).
        case real
    }

    /// `file:line` of the scenario, for reports.
    public var location: String { "\(file):\(mark.line)" }
}

/// A device to create before the steps run: its id, the control-API body that creates it (profiles
/// merged in), and the ids of its apps in install order.
public struct DeviceSpec: Sendable {
    public var id: String
    /// `POST /_emulator/devices` body (JSON).
    public var body: [UInt8]
    public var bundleIds: [String]
    /// Token environment of each app (from its build), for pushes that name an app.
    public var environments: [String: APNsEnvironment]
    public var mark: YAMLNode.Mark
}

/// Who sends pushes, and how it authenticates.
public struct SenderSpec: Sendable {
    public enum Auth: Sendable, Equatable {
        /// Provider token signed by the bundled sample key.
        case bundledKey
        /// A key the emulator generates at the start of the scenario (`POST /_emulator/keys`).
        case generatedKey(kind: String, environment: String?, topics: [String], teamId: String, keyId: String)
        /// mTLS with the bundled client certificate of an environment.
        case certificate(APNsEnvironment)
        /// This exact `authorization` value (malformed tokens on purpose).
        case raw(String)
        /// No credentials at all.
        case none
    }

    public var name: String
    public var auth: Auth
    /// Added to "now" for the JWT's `iat` (negative: an old token).
    public var issuedAtOffsetMillis: Int64
    public var mark: YAMLNode.Mark
}
