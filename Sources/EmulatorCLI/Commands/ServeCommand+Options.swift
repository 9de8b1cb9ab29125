import APNsEmulator
import APNsProtocol

extension ServeCommand {
    /// The flags, as data for the parser and the generated help.
    enum Option {
        private static let defaults = EmulatorConfiguration()
        private static let policyDefaults = defaults.policy

        static let host = OptionDeclaration.value(
            "host",
            valueName: "address",
            help: "Address every listener binds to; use 0.0.0.0 inside a container, with --control-token.",
            default: defaults.host
        )
        static let productionPort = OptionDeclaration.value(
            "production-port",
            valueName: "port",
            help: "Port of the production APNs listener (api.push.apple.com); 0 picks a free port.",
            default: String(defaults.productionPort)
        )
        static let sandboxPort = OptionDeclaration.value(
            "sandbox-port",
            valueName: "port",
            help: "Port of the sandbox APNs listener (api.sandbox.push.apple.com); 0 picks a free port.",
            default: String(defaults.sandboxPort)
        )
        static let controlPort = OptionDeclaration.value(
            "control-port",
            valueName: "port",
            help: "Port of the plain HTTP/1.1 control API; 0 picks a free port.",
            default: String(defaults.controlPort)
        )
        static let frontDoorPort = OptionDeclaration.value(
            "front-door-port",
            valueName: "port",
            help: "Port of the providers' front doors over TLS: FCM's HTTP v1 and legacy APIs, Google's OAuth token "
                + "endpoint and OneSignal's notifications API; 0 picks a free port.",
            default: String(defaults.frontDoorPort ?? 0)
        )
        static let noFrontDoors = OptionDeclaration.flag(
            "no-front-doors", help: "Serve no front doors (no FCM or OneSignal endpoints).")
        static let fcmLegacyAPI = OptionDeclaration.value(
            "fcm-legacy-api", valueName: "state",
            help: "open: POST /fcm/send works as before its shutdown; shut-down: every target gets DeprecatedApi, "
                + "as since FCM turned the legacy API off.", default: "open")
        static let readyFile = OptionDeclaration.value(
            "ready-file",
            valueName: "path",
            help: "Write the endpoints as JSON to this file once every listener accepts connections."
        )
        static let certificates = OptionDeclaration.value(
            "certs",
            valueName: "dir",
            help: "Folder holding ca.pem, server.pem and server-key.pem (see 'apns-emulator certs').",
            default: defaults.certificatesDirectory
        )
        static let eventLoops = OptionDeclaration.value(
            "event-loops",
            valueName: "n",
            help: "Event-loop threads serving APNs connections.",
            default: defaults.eventLoops.map(String.init) ?? "one per core"
        )
        static let maxConcurrentStreams = OptionDeclaration.value(
            "max-concurrent-streams",
            valueName: "n",
            help: "SETTINGS_MAX_CONCURRENT_STREAMS advertised to each connection.",
            default: String(defaults.maxConcurrentStreams)
        )
        static let maxBodyBytes = OptionDeclaration.value(
            "max-body-bytes",
            valueName: "n",
            help: "Request bodies larger than this are not buffered and are reported as too large.",
            default: String(defaults.maxRequestBodyBytes)
        )
        static let handshakeTimeout = OptionDeclaration.value(
            "handshake-timeout",
            valueName: "seconds",
            help: "Close connections that have not finished the TLS handshake by then; 0 never does.",
            default: formatSeconds(defaults.handshakeTimeoutSeconds)
        )
        static let prefaceTimeout = OptionDeclaration.value(
            "preface-timeout",
            valueName: "seconds",
            help: "Close connections that have not sent the HTTP/2 preface this long after the TLS handshake; 0 never does.",
            default: formatSeconds(defaults.prefaceTimeoutSeconds)
        )
        static let maxConnections = OptionDeclaration.value(
            "max-connections",
            valueName: "n",
            help: "Close new APNs connections at once while this many are open (the others are served on); "
                + "default: the open-file limit less a quarter for the control port and a twentieth for files."
        )
        static let idleTimeout = OptionDeclaration.value(
            "idle-timeout",
            valueName: "seconds",
            help: "Send GOAWAY to connections idle this long; 0 never does.",
            default: formatSeconds(defaults.idleTimeoutSeconds)
        )
        static let shutdownGrace = OptionDeclaration.value(
            "shutdown-grace",
            valueName: "seconds",
            help: "On SIGINT/SIGTERM, how long in-flight streams may finish before connections close.",
            default: formatSeconds(defaults.shutdownGraceSeconds)
        )
        static let noClientCertificates = OptionDeclaration.flag(
            "no-client-certificates",
            help: "Do not request TLS client certificates (token authentication only)."
        )
        static let transportOnly = OptionDeclaration.flag(
            "transport-only",
            help: "Benchmarking aid: answer every APNs request 200 without validating it, to measure the transport alone."
        )

        static let stateDirectory = OptionDeclaration.value(
            "state-dir",
            valueName: "dir",
            help: "Folder of the state store (keys, device tokens, faults), kept across restarts; created if "
                + "missing.",
            default: defaults.stateDirectory
        )
        static let ephemeral = OptionDeclaration.flag(
            "ephemeral",
            help: "Keep all state in memory: nothing is read from or written to --state-dir."
        )
        static let stateStore = OptionDeclaration.value(
            "state-store",
            valueName: "url",
            help: "redis://HOST:PORT[/DB]: share keys, tokens, faults and shaping live with every emulator on the same "
                + "Redis, with a cluster journal (GET /_emulator/cluster). Replaces --state-dir."
        )
        static let replicaId = OptionDeclaration.value(
            "replica-id",
            valueName: "name",
            help: "This emulator's name among the replicas of --state-store (letters, digits, . _ -; up to 64).",
            default: "<host name>-<pid>"
        )
        static let advertiseHost = OptionDeclaration.value(
            "advertise-host",
            valueName: "host",
            help: "With --state-store, the host other replicas reach this one's control API on, for reads merged "
                + "across the cluster.",
            default: "--host, or the host name when --host is 0.0.0.0 or ::"
        )
        static let clusterJournal = OptionDeclaration.value(
            "cluster-journal",
            valueName: "when",
            help: "With --state-store, when an accepted push is answered: behind (at once, copied within 50 ms; a "
                + "replica killed outright loses the copies of its last 50 ms) or durable (once it is in the cluster "
                + "journal, about a Redis round trip later: a replica killed outright loses none a client saw accepted, "
                + "and a cluster journal read after the answer holds it).",
            default: "behind"
        )
        static let controlToken = OptionDeclaration.value(
            "control-token",
            valueName: "token",
            help: "Bearer token every control API request must carry; required when --host is not a loopback "
                + "address. Read from \(ServeCommand.controlTokenVariable) when the flag is absent."
        )
        static let realism = OptionDeclaration.value(
            "realism",
            valueName: "profile",
            help: "documented: only what Apple documents. strict: also what real APNs was seen to do (one "
                + "stream until a token is accepted, one stream after a rejection, GOAWAY after "
                + "\(ConnectionBehavior.strict.goAwayAfterErrors) errors).",
            default: defaults.connectionBehavior.profileName
        )
        static let noJournal = OptionDeclaration.flag(
            "no-journal",
            help: "Do not record requests in the journal (for load tests)."
        )
        static let journalCapacity = OptionDeclaration.value(
            "journal-capacity",
            valueName: "n",
            help: "Journal entries kept; the oldest are dropped beyond this.",
            default: String(defaults.journalCapacity)
        )
        static let importState = OptionDeclaration.value(
            "import",
            valueName: "file",
            help: "Import a state snapshot (GET /_emulator/state) at start; with --state-store it replaces the shared state."
        )
        static let manualClock = OptionDeclaration.flag(
            "manual-clock",
            help: "Start the clock at the real time and move it only through POST /_emulator/clock/advance."
        )
        static let lowPriorityDelay = OptionDeclaration.value(
            "low-priority-delay",
            valueName: "seconds",
            help: "Hold priority 5 and 1 pushes this long before delivering them to online virtual devices.",
            default: formatSeconds(defaults.lowPriorityDelaySeconds)
        )
        static let latency = OptionDeclaration.value(
            "latency",
            valueName: "spec",
            help: "Delay every answer: fixed:5ms, uniform:1ms-10ms or lognormal:5ms,p99=50ms (also live: PUT "
                + "/_emulator/shaping).",
            default: "none"
        )
        static let deliveryLatency = OptionDeclaration.value(
            "delivery-latency",
            valueName: "spec",
            help: "Time from a push's 200 to its arrival on an online virtual device: fixed:500ms, uniform:10ms-200ms "
                + "or lognormal:50ms,p99=2000ms (needs the real clock; POST /_emulator/settle waits for it).",
            default: "none"
        )
        static let connectionRateLimit = OptionDeclaration.value(
            "connection-rate-limit",
            valueName: "n",
            help: "Answer 429 TooManyRequests beyond this many requests per connection per second; 0 never does.",
            default: "0"
        )
        static let goAwayAfterRequests = OptionDeclaration.value(
            "goaway-after-requests",
            valueName: "n",
            help: "Recycle each connection with GOAWAY after this many requests; 0 never does.",
            default: "0"
        )
        static let goAwayAfterSeconds = OptionDeclaration.value(
            "goaway-after-seconds",
            valueName: "seconds",
            help: "Recycle each connection with GOAWAY once it is this old; 0 never does.",
            default: "0"
        )
        static let brownout = OptionDeclaration.value(
            "brownout",
            valueName: "share[:status]",
            help: "Answer this share of requests (0-1) with 503 ServiceUnavailable, or 500 InternalServerError with :500.",
            default: "0"
        )
        static let tokenRateLimit = OptionDeclaration.value(
            "token-rate-limit",
            valueName: "n",
            help: "Answer 429 TooManyRequests to pushes beyond this many per device token per "
                + "--token-rate-window; 0 never does.",
            default: String(defaults.tokenRateLimit)
        )
        static let tokenRateWindow = OptionDeclaration.value(
            "token-rate-window",
            valueName: "seconds",
            help: "The window --token-rate-limit counts pushes in.",
            default: formatSeconds(defaults.tokenRateWindowSeconds)
        )
        static let noSampleKey = OptionDeclaration.flag(
            "no-sample-key",
            help: "Do not register the sample signing key (certs/AuthKey_\(DevCertificates.sampleKeyId).p8) at "
                + "start."
        )

        // One flag per ValidationPolicy switch: the Decisions where Apple's documentation is unclear.
        static let requirePushType = OptionDeclaration.flag(
            "require-push-type",
            help: "Answer 400 InvalidPushType when apns-push-type is absent (as watchOS requires), instead of "
                + "assuming alert."
        )
        static let allowBackgroundPriority10 = OptionDeclaration.flag(
            "allow-background-priority-10",
            help: "Accept background pushes at priority 10 instead of answering 400 BadPriority."
        )
        static let nonObjectPayloadReason = OptionDeclaration.value(
            "non-object-payload-reason",
            valueName: "reason",
            help: "Reason for a body that is not a JSON object, for which Apple documents none.",
            default: policyDefaults.nonObjectPayloadReason.rawValue
        )
        static let badEnvironmentKeySpelling = OptionDeclaration.value(
            "bad-environment-key-spelling",
            valueName: "spelling",
            help: "documented: BadEnvironmentKeyIdInToken, as Apple documents it. observed: "
                + "BadEnvironmentKeyInToken, as some servers were seen to send it.",
            default: policyDefaults.useUndocumentedBadEnvironmentKeySpelling ? "observed" : "documented"
        )
        static let futureIssuedAtTolerance = OptionDeclaration.value(
            "future-iat-tolerance",
            valueName: "seconds",
            help: "A provider token issued further than this in the future is InvalidProviderToken.",
            default: String(policyDefaults.futureIssuedAtToleranceSeconds)
        )
        static let providerTokenMaxAge = OptionDeclaration.value(
            "provider-token-max-age",
            valueName: "seconds",
            help: "A provider token issued longer ago than this is ExpiredProviderToken.",
            default: String(policyDefaults.providerTokenMaxAgeSeconds)
        )
        static let providerTokenRefreshInterval = OptionDeclaration.value(
            "provider-token-refresh-interval",
            valueName: "seconds",
            help: "A new provider token on a connection sooner than this after the previous new one is 429 "
                + "TooManyProviderTokenUpdates; 0 never is.",
            default: String(policyDefaults.providerTokenRefreshIntervalSeconds)
        )
        static let topicKeyOutsideTopicsReason = OptionDeclaration.value(
            "topic-key-outside-topics-reason",
            valueName: "reason",
            help: "Reason for a topic-specific key signing a push to a topic outside its list.",
            default: policyDefaults.topicKeyOutsideTopicsReason.rawValue
        )
        static let foreignTeamTopicReason = OptionDeclaration.value(
            "foreign-team-topic-reason",
            valueName: "reason",
            help: "Reason for a provider token pushing to a bundle id another team's key lists in its topics.",
            default: policyDefaults.foreignTeamTopicReason.rawValue
        )
        static let maxCollapseIdBytes = OptionDeclaration.value(
            "max-collapse-id-bytes",
            valueName: "n",
            help: "Longest apns-collapse-id accepted, in bytes.",
            default: String(policyDefaults.maxCollapseIdBytes)
        )
        static let broadcastPayloadLimit = OptionDeclaration.value(
            "broadcast-payload-limit",
            valueName: "n",
            help: "Largest broadcast push payload accepted, in bytes.",
            default: String(policyDefaults.broadcastPayloadLimit)
        )
        static let rejectDERSignatures = OptionDeclaration.flag(
            "reject-der-signatures",
            help: "Reject provider tokens signed in DER (as Java signs) rather than JOSE's raw r||s; real APNs "
                + "accepts both."
        )

        static let rejectUppercaseApnsId = OptionDeclaration.flag(
            "reject-uppercase-apns-id",
            help: "Answer an apns-id with uppercase hex digits 400 BadMessageId instead of echoing it as sent."
        )
        static let environmentFromListenerOnly = OptionDeclaration.flag(
            "environment-from-listener-only",
            help: "Let the listener alone choose production or sandbox, ignoring Apple host names in "
                + ":authority and SNI."
        )

        static let noRFC7540Priorities = OptionDeclaration.flag(
            "no-rfc7540-priorities",
            help: "Advertise SETTINGS_NO_RFC7540_PRIORITIES=1 (RFC 9218), as nghttpd --no-rfc7540-pri does.")
        static let logLevel = OptionDeclaration.value(
            "log-level", valueName: "level",
            help: "error: only errors; info: the banner and, on a terminal, the live summary; debug: the banner "
                + "and one line per request instead of the summary.", default: "info")
        static let requestLog = OptionDeclaration.flag(
            "request-log", help: "One line per APNs request on standard output (from the journal).")
        static let logFormat = OptionDeclaration.value(
            "log-format", valueName: "format", help: "The request log's lines: text or json (one object a line).",
            default: "text")

        static let all = [
            host, productionPort, sandboxPort, controlPort, frontDoorPort, noFrontDoors, fcmLegacyAPI, readyFile, certificates, eventLoops, maxConcurrentStreams,
            maxBodyBytes, handshakeTimeout, prefaceTimeout, maxConnections, idleTimeout, shutdownGrace, noClientCertificates, transportOnly,
            stateDirectory, ephemeral, stateStore, replicaId, advertiseHost, clusterJournal, importState, controlToken, realism, noJournal, journalCapacity, manualClock,
            lowPriorityDelay, latency, deliveryLatency, connectionRateLimit, goAwayAfterRequests, goAwayAfterSeconds, brownout,
            tokenRateLimit,
            tokenRateWindow, noSampleKey, requirePushType, allowBackgroundPriority10, nonObjectPayloadReason,
            badEnvironmentKeySpelling, futureIssuedAtTolerance, providerTokenMaxAge, providerTokenRefreshInterval,
            topicKeyOutsideTopicsReason, foreignTeamTopicReason, maxCollapseIdBytes, broadcastPayloadLimit, rejectDERSignatures,
            rejectUppercaseApnsId, environmentFromListenerOnly, noRFC7540Priorities, logLevel, requestLog, logFormat,
        ]

        /// `10` rather than `10.0`, so help shows what a user would type.
        static func formatSeconds(_ seconds: Double) -> String {
            seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
        }
    }
}
