import APNsEmulator
import APNsProtocol

extension ServeCommand {
    /// State, control, realism, journal, rate-limit and sample-key flags onto their configuration fields.
    ///
    /// - Parameters:
    ///   - options: The parsed flags.
    ///   - environment: Consulted for the control token when `--control-token` is absent.
    ///   - configuration: Updated in place; fields without a flag keep their value.
    static func applyStateOptions(
        _ options: ParsedOptions,
        environment: [String: String],
        to configuration: inout EmulatorConfiguration
    ) throws(UsageError) {
        if let directory = try options.string(Option.stateDirectory) { configuration.stateDirectory = directory }
        if options.flag(Option.ephemeral) { configuration.ephemeral = true }
        // An empty variable (compose's `${VAR:-}`) means unset, not "the empty token".
        if let token = try options.string(Option.controlToken) ?? environment[controlTokenVariable], !token.isEmpty {
            configuration.controlToken = token
        }
        if let behavior = try options.choice(
            Option.realism,
            [("documented", ConnectionBehavior.documented), ("strict", ConnectionBehavior.strict)]
        ) {
            configuration.connectionBehavior = behavior
        }
        if options.flag(Option.noJournal) { configuration.journalEnabled = false }
        if let capacity = try options.integer(Option.journalCapacity, in: 1...Int(Int32.max)) {
            configuration.journalCapacity = capacity
        }
        if options.flag(Option.manualClock) { configuration.manualClock = true }
        if let file = try options.string(Option.importState) { configuration.importStateFile = file }
        if let seconds = try options.seconds(Option.lowPriorityDelay, allowingZero: true) {
            configuration.lowPriorityDelaySeconds = seconds
        }
        if let limit = try options.integer(Option.tokenRateLimit, in: 0...Int(Int32.max)) {
            configuration.tokenRateLimit = limit
        }
        if let seconds = try options.seconds(Option.tokenRateWindow, allowingZero: false) {
            configuration.tokenRateWindowSeconds = seconds
        }
        if options.flag(Option.noSampleKey) { configuration.registerSampleKey = false }
    }

    /// One flag per `ValidationPolicy` switch, starting from the policy's own defaults (the spec's Decisions).
    ///
    /// - Parameter options: The parsed flags.
    static func policy(from options: ParsedOptions) throws(UsageError) -> ValidationPolicy {
        var policy = ValidationPolicy()
        if options.flag(Option.requirePushType) { policy.defaultPushTypeToAlert = false }
        if options.flag(Option.allowBackgroundPriority10) { policy.rejectBackgroundPriority10 = false }
        if let reason = try reason(Option.nonObjectPayloadReason, in: options) {
            policy.nonObjectPayloadReason = reason
        }
        if let observed = try options.choice(
            Option.badEnvironmentKeySpelling,
            [("documented", false), ("observed", true)]
        ) {
            policy.useUndocumentedBadEnvironmentKeySpelling = observed
        }
        let seconds = 0...Int(Int32.max)
        if let value = try options.integer(Option.futureIssuedAtTolerance, in: seconds) {
            policy.futureIssuedAtToleranceSeconds = Int64(value)
        }
        if let value = try options.integer(Option.providerTokenMaxAge, in: 1...Int(Int32.max)) {
            policy.providerTokenMaxAgeSeconds = Int64(value)
        }
        if let value = try options.integer(Option.providerTokenRefreshInterval, in: seconds) {
            policy.providerTokenRefreshIntervalSeconds = Int64(value)
        }
        if let reason = try reason(Option.topicKeyOutsideTopicsReason, in: options) {
            policy.topicKeyOutsideTopicsReason = reason
        }
        if let bytes = try options.integer(Option.maxCollapseIdBytes, in: 1...Int(Int32.max)) {
            policy.maxCollapseIdBytes = bytes
        }
        if let bytes = try options.integer(Option.broadcastPayloadLimit, in: 1...Int(Int32.max)) {
            policy.broadcastPayloadLimit = bytes
        }
        if options.flag(Option.rejectDERSignatures) { policy.acceptDEREncodedSignatures = false }
        if options.flag(Option.rejectUppercaseApnsId) { policy.acceptUppercaseApnsId = false }
        return policy
    }

    /// One of Apple's reason strings, matched without regard to case (`payloadempty` is clearly `PayloadEmpty`);
    /// a near miss gets a suggestion, since there are too many reasons to list.
    private static func reason(_ option: OptionDeclaration, in options: ParsedOptions) throws(UsageError)
        -> APNsReason?
    {
        guard let occurrence = options.last(option), let text = occurrence.value else { return nil }
        if let reason = APNsReason.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) {
            return reason
        }
        let names = APNsReason.allCases.map(\.rawValue)
        let hint = Suggestion.nearest(to: text, among: names).map { "; did you mean '\($0)'?" } ?? ", e.g. PayloadEmpty"
        throw .invalidValue(occurrence.argument, expected: "one of Apple's reason strings\(hint)")
    }
}
