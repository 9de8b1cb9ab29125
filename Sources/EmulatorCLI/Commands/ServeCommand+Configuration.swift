import APNsEmulator
import APNsProtocol
import StateStore

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
        if let url = try options.value(Option.stateStore, expected: "redis://HOST:PORT[/DB] (no password, TLS or options)",
                                       { (try? RedisAddress(parsing: $0)) != nil ? $0 : nil }) {
            configuration.stateStore = url
        }
        if let id = try options.value(Option.replicaId, expected: "1–64 letters, digits, '.', '_' or '-'",
                                      { EmulatorConfiguration.isValidReplicaId($0) ? $0 : nil }) {
            configuration.replicaId = id
        }
        if let host = try options.value(Option.advertiseHost, expected: "a host name or address (no scheme or port)",
                                        { h in !h.isEmpty && h.count <= 253 && !h.contains("/") && !h.contains(" ") ? h : nil }) {
            configuration.advertiseHost = host
        }
        if let mode = try options.choice(Option.clusterJournal, ClusterJournalMode.allCases.map { ($0.rawValue, $0) }) {
            configuration.clusterJournal = mode
        }
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
        if let latency = try options.value(Option.latency, expected: "none, fixed:5ms, uniform:1ms-10ms or lognormal:5ms,p99=50ms",
                                           Self.parseLatency) {
            configuration.shaping.latency = latency
        }
        if let latency = try options.value(Option.deliveryLatency,
                                           expected: "none, fixed:500ms, uniform:10ms-200ms or lognormal:50ms,p99=2000ms",
                                           Self.parseLatency) {
            configuration.deliveryLatency = latency
        }
        if let n = try options.integer(Option.connectionRateLimit, in: 0...10_000_000) { configuration.shaping.connectionRateLimit = n }
        if let n = try options.integer(Option.goAwayAfterRequests, in: 0...Int(Int32.max)) { configuration.shaping.goAwayAfterRequests = n }
        if let seconds = try options.seconds(Option.goAwayAfterSeconds, allowingZero: true) {
            configuration.shaping.goAwayAfterSeconds = seconds
        }
        if let brownout = try options.value(Option.brownout, expected: "a share from 0 to 1, optionally :500 or :503",
                                            Self.parseBrownout) {
            configuration.shaping.brownoutShare = brownout.share
            configuration.shaping.brownoutStatus = brownout.status
        }
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

    /// `fixed:5ms`, `uniform:1ms-10ms`, `lognormal:5ms,p99=50ms` (milliseconds; the `ms` is optional).
    static func parseLatency(_ text: String) -> ShapingSettings.Latency? {
        func ms(_ s: Substring) -> Double? {
            let t = s.hasSuffix("ms") ? s.dropLast(2) : s
            return Double(t).flatMap { $0 >= 0 && $0 <= 600_000 ? $0 : nil }
        }
        if text == "none" { return ShapingSettings.Latency.none }
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "fixed": return ms(parts[1]).map { .fixed(ms: $0) }
        case "uniform":
            let r = parts[1].split(separator: "-")
            guard r.count == 2, let a = ms(r[0]), let b = ms(r[1]), a <= b else { return nil }
            return .uniform(minMs: a, maxMs: b)
        case "lognormal":
            let r = parts[1].split(separator: ",")
            guard r.count == 2, r[1].hasPrefix("p99="), let m = ms(r[0]), let p = ms(r[1].dropFirst(4)), m > 0, p >= m else {
                return nil
            }
            return .logNormal(medianMs: m, p99Ms: p)
        default: return nil
        }
    }

    static func parseBrownout(_ text: String) -> (share: Double, status: Int)? {
        let parts = text.split(separator: ":")
        guard let share = Double(parts[0]), (0...1).contains(share) else { return nil }
        if parts.count == 1 { return (share, 503) }
        guard parts.count == 2, let status = Int(parts[1]), status == 500 || status == 503 else { return nil }
        return (share, status)
    }

    /// One flag per `ValidationPolicy` switch, starting from the policy's own defaults.
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
        if let reason = try reason(Option.foreignTeamTopicReason, in: options) { policy.foreignTeamTopicReason = reason }
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
