import APNsEmulator
import APNsProtocol
import StateStore

/// `components.schemas`: every request and response body of the control API.
extension ControlAPIDocument {
    static let appleId = "^[A-Z0-9]{10}$"
    static let hexToken = "^([0-9a-fA-F]{2}){8,255}$"
    static let bundle = "^[A-Za-z0-9._-]{1,255}$"
    static let environments = APNsEnvironment.allCases.map(\.rawValue)

    static func schemas() -> JSON {
        var s: JSON = [
            "Health": object("Liveness; the exact shape `{\"status\":\"ok\"}` is a contract.",
                             [("status", string("Always `ok`.", choices: ["ok"]))], required: ["status"]),
            "Error": object("Why a request was refused.", [
                ("error", string("What went wrong, for humans.", example: "unknown field 'teamid' (expected one of:"
                                 + " teamId, keyId, kind, environment, topics, relatedKeyId, publicKeyPem)")),
                ("field", string("400 only: the offending field or query parameter (`action.reason`, `topics[2]`),"
                                 + " or null when the body as a whole is wrong.", example: "teamid", nullable: true)),
            ], required: ["error"]),
            "OpenAPIDocument": ["type": "object", "description": "This document."] as JSON,
            "Latency": object("Latency added before each answer.", [
                ("type", string("Distribution.", choices: ["none", "fixed", "uniform", "logNormal"])),
                ("ms", ["type": "number", "description": "fixed: milliseconds."] as JSON),
                ("minMs", ["type": "number", "description": "uniform: lower bound."] as JSON),
                ("maxMs", ["type": "number", "description": "uniform: upper bound."] as JSON),
                ("medianMs", ["type": "number", "description": "logNormal: median."] as JSON),
                ("p99Ms", ["type": "number", "description": "logNormal: 99th percentile."] as JSON),
            ], required: ["type"]),
            "Shaping": object("Apple-like back-pressure.", [
                ("latency", ref("Latency")),
                ("maxConcurrentStreams", integer("SETTINGS_MAX_CONCURRENT_STREAMS.", minimum: 1)),
                ("tokenRateLimit", integer("Pushes per token per window before 429 (0: off).", minimum: 0)),
                ("tokenRateWindowMs", integer("The token rate window.", minimum: 1)),
                ("connectionRateLimit", integer("Requests per connection per second before 429 (0: off).", minimum: 0)),
                ("goAwayAfterRequests", integer("GOAWAY after this many requests on a connection (0: never).", minimum: 0)),
                ("goAwayAfterSeconds", ["type": "number", "description": "GOAWAY once a connection is this old (0: never)."] as JSON),
                ("brownoutShare", ["type": "number", "minimum": 0, "maximum": 1,
                                   "description": "Share of requests answered brownoutStatus."] as JSON),
                ("brownoutStatus", integer("503 ServiceUnavailable or 500 InternalServerError.")),
            ]),
            "ShapingUpdate": object("Fields to change; the others keep their value.", [
                ("latency", ref("Latency")),
                ("maxConcurrentStreams", integer("SETTINGS_MAX_CONCURRENT_STREAMS.", minimum: 1, maximum: 100_000)),
                ("tokenRateLimit", integer("Pushes per token per window before 429 (0: off).", minimum: 0)),
                ("tokenRateWindowMs", integer("The token rate window.", minimum: 1, maximum: 3_600_000)),
                ("connectionRateLimit", integer("Requests per connection per second before 429 (0: off).", minimum: 0)),
                ("goAwayAfterRequests", integer("GOAWAY after this many requests (0: never).", minimum: 0)),
                ("goAwayAfterSeconds", ["type": "number", "minimum": 0, "maximum": 86_400,
                                        "description": "GOAWAY once a connection is this old (0: never)."] as JSON),
                ("brownoutShare", ["type": "number", "minimum": 0, "maximum": 1, "description": "Share answered brownoutStatus."] as JSON),
                ("brownoutStatus", integer("503 or 500.")),
            ], closed: true),
            "Stats": object("What senders did.", [
                ("totals", ["type": "object", "description": "requests, succeeded, failed, openConnections, connectionsTotal,"
                            + " openStreams, concurrencyHighWater, tokenRefreshes, responses (by status and reason)."] as JSON),
                ("connections", array(["type": "object", "description": "id, remote, listener, auth, openedAt, requests,"
                                       + " accepted, rejected, requestsPerSecond, concurrencyHighWater, tokenUpdates,"
                                       + " lastTokenUpdateAt."] as JSON, "Open connections.")),
                ("closedConnections", array(["type": "object", "description": "As connections, with closedAt."] as JSON,
                                            "Recently closed connections (the last 1000).")),
                ("shaping", ref("Shaping")),
            ]),
            "ReplicaReport": object("What a replica last reported (once a second).", [
                ("id", string("--replica-id.")),
                ("incarnation", string("One run of the replica; a restart under the same id is a new one.")),
                ("state", string("What it said.", choices: ["running", "stopped"])),
                ("startedAt", millis("When it started")),
                ("lastSeenAt", millis("When it last reported")),
                ("endpoints", ref("Endpoints")),
                ("answered", integer("APNs requests answered.", minimum: 0)),
                ("accepted", integer("Of those, answered 200.", minimum: 0)),
                ("journalNewestId", integer("The newest entry of its own journal.", minimum: 0)),
                ("journalForwardedId", integer("The newest it copied into the cluster journal.", minimum: 0)),
                ("devices", integer("Its virtual devices.", minimum: 0)),
                ("deviceIds", array(["type": "string"] as JSON, "Up to 1,000 of their ids, sorted.")),
            ]),
            "ClusterDevice": object("Where a virtual device lives.", [
                ("id", string("The device.")),
                ("replica", string("The replica holding it.")),
                ("state", string("That replica's state.", choices: ["running", "stopped", "lost"])),
                ("endpoints", ref("Endpoints")),
                ("controlURL", string("That replica's control API, as it advertises it.")),
                ("device", object("The device as its replica's GET /_emulator/devices/{deviceId} shows it.", [])),
            ], required: ["id", "replica", "state", "device"]),
            "ClusterUnreachable": array(object("A live replica that did not answer.", [
                ("replica", string("The replica.")),
                ("error", string("What went wrong.")),
            ], required: ["replica", "error"]), "Live replicas left out of the answer, with why."),
            "ClusterDevices": object("Every live replica's virtual devices.", [
                ("devices", array(object("A device as its replica lists it, with `replica` added.", [
                    ("replica", string("The replica holding it.")),
                ], required: ["replica"]), "Replica by replica.")),
                ("unreachable", ref("ClusterUnreachable")),
            ], required: ["devices", "unreachable"]),
            "ClusterDeliveries": object("Every live replica's delivery fates.", [
                ("deliveries", array(object("A fate as its replica lists it, with `replica` added.", [
                    ("replica", string("The replica whose device it reached.")),
                ], required: ["replica"]), "Replica by replica.")),
                ("unreachable", ref("ClusterUnreachable")),
            ], required: ["deliveries", "unreachable"]),
            "Cluster": object("The replicas sharing one state store.", [
                ("shared", boolean("Whether this emulator runs with --state-store.")),
                ("store", string("The store's address.", nullable: true)),
                ("replicaId", string("This replica.")),
                ("replicas", array(object("A replica.", [
                    ("id", string("--replica-id.")),
                    ("state", string("running, stopped (shut down cleanly) or lost (stopped reporting).",
                                     choices: ["running", "stopped", "lost"])),
                    ("report", ref("ReplicaReport")),
                ]), "Every replica that reported, by id (a reset forgets the lost ones).")),
                ("totals", object("Every replica's counters as it last reported them, added up.", [
                    ("answered", integer("APNs requests answered.", minimum: 0)),
                    ("accepted", integer("Of those, answered 200.", minimum: 0)),
                    ("running", integer("Replicas running.", minimum: 0)),
                    ("stopped", integer("Replicas that shut down cleanly.", minimum: 0)),
                    ("lost", integer("Replicas whose reports stopped.", minimum: 0)),
                ])),
                ("deliveries", object("This replica's push hand-over.", [
                    ("handedOver", integer("Pushes it accepted for other replicas' devices and handed to them.", minimum: 0)),
                    ("dropped", integer("Pushes it could not hand over (queue full, Redis refused).", minimum: 0)),
                    ("undeliverable", integer("Pushes for devices of replicas no longer live (not handed over).",
                                              minimum: 0)),
                    ("received", integer("Pushes other replicas handed to its devices.", minimum: 0)),
                ])),
                ("journalForwardedId", integer("This replica: the newest local id in the cluster journal.", minimum: 0)),
                ("journalError", string("This replica: why its last copy failed (it retries).", nullable: true)),
                ("journalMissed", integer("This replica: journal entries dropped (capacity, memory) before it copied them.",
                                          minimum: 0)),
            ], required: ["shared", "replicaId", "replicas"]),
            "ClusterSync": object("The change every live replica has applied.",
                                  [("version", integer("The latest change number when the call was made.", minimum: 0))],
                                  required: ["version"]),
            "ClusterJournalPage": object("Cluster journal entries, oldest first.", [
                ("entries", array(object("One entry and where it came from.", [
                    ("position", string("Its place in the cluster journal, `<batch>/<index>` (pass as after).")),
                    ("replica", string("The replica that answered it.")),
                    ("localId", integer("Its id in that replica's journal.", minimum: 1)),
                    ("entry", ref("JournalEntry")),
                ], required: ["position", "replica", "localId", "entry"]), "The entries.")),
                ("next", string("`after` for the next page; null when this one is empty.", nullable: true)),
                ("unreadable", integer("Entries on this page written by another build, left out.", minimum: 0)),
            ], required: ["entries", "unreadable"]),
            "Endpoints": object("The ready-file JSON; the exact shape is a contract.", [
                ("production", string("Production APNs base URL.", example: "https://127.0.0.1:2197")),
                ("sandbox", string("Sandbox APNs base URL.", example: "https://127.0.0.1:2198")),
                ("control", string("Control API base URL.", example: "http://127.0.0.1:8765")),
                ("ca", string("Absolute path of the CA certificate clients must trust.")),
            ], required: ["production", "sandbox", "control", "ca"]),
            "Count": object("How many journal entries match.",
                            [("count", integer("Matching entries (capped by `limit`).", minimum: 0))],
                            required: ["count"]),
            "ClockNow": object("The clock after advancing.", [("now", millis("Now"))], required: ["now"]),
            "Clock": object("The emulator's clock.", [
                ("now", millis("Now")),
                ("controllable", boolean("Whether `POST /_emulator/clock/advance` can move it (a manual clock).")),
                ("frozen", boolean("Whether a manual clock stands still (`freeze`/`resume`).")),
            ], required: ["now", "controllable", "frozen"]),
            "ClockAdvanceRequest": object("Exactly one of `ms` and `seconds`.", [
                ("ms", integer("Milliseconds to move forward.", minimum: 0, maximum: ControlAPIValidation.maxMillis)),
                ("seconds", ["type": "number", "minimum": 0,
                             "description": "Seconds to move forward (fractions allowed)."] as JSON),
            ], closed: true),
            "EmulatorState": object("Everything that persists: what `GET /_emulator/state` exports and `PUT`"
                                    + " imports.", [
                ("version", integer("Snapshot format version.", minimum: 1,
                                    maximum: Int64(EmulatorState.currentVersion))),
                ("keys", array(ref("ProviderKey"), "Signing keys.")),
                ("tokens", array(ref("DeviceToken"), "Device tokens.")),
                ("faults", array(ref("FaultRule"), "Fault rules.")),
            ], required: ["version", "keys", "tokens", "faults"]),
        ]
        for (name, schema) in keySchemas().merging(tokenSchemas(), uniquingKeysWith: { a, _ in a })
            .merging(journalSchemas(), uniquingKeysWith: { a, _ in a })
            .merging(faultSchemas(), uniquingKeysWith: { a, _ in a }) {
            s[name] = schema
        }
        return s
    }

    // MARK: Keys

    static func keyFields(forRequest: Bool) -> [(String, JSON)] {
        [
            ("keyId", string("10-character key id (the JWT header's `kid`).", example: "ABC123DEFG", pattern: appleId)),
            ("teamId", string("10-character team id (the JWT claim `iss`).", example: "TEAM123456", pattern: appleId)),
            ("kind", string("`team`: legacy key, every topic, both environments. `team-scoped`: one environment."
                            + " `topic`: one environment and listed topics." + (forRequest ? " Default `team`." : ""),
                            choices: ProviderKeyKind.allCases.map(\.rawValue))),
            ("environment", string("Required for `team-scoped` and `topic` keys, absent for `team` keys.",
                                   choices: environments)),
            ("topics", array(string("A bundle id.", pattern: bundle), "The team's apps. Topic keys sign for these"
                             + " only (required, 1–400); team and team-scoped keys sign for any topic, and listing"
                             + " bundle ids declares them the team's, so another team's token pushing to one is"
                             + " refused (TopicDisallowed). Bundle ids no key lists are open to every team.",
                             maxItems: ControlAPIValidation.maxTopicsPerKey)),
            ("relatedKeyId", string("Optional: a key this one is related to (tokens signed by either may share a"
                                    + " connection without UnrelatedKeyIdInToken).", pattern: appleId)),
            ("publicKeyPem", string("SubjectPublicKeyInfo PEM of the P-256 public key" + (forRequest
                ? ". Omit it to have the emulator generate a pair: the response then carries `privateKeyPem`." : "."),
                                    example: "-----BEGIN PUBLIC KEY-----\n...\n-----END PUBLIC KEY-----\n")),
        ]
    }

    static func keySchemas() -> JSON {
        [
            "ProviderKey": object("A signing key the emulator trusts (never its private key).",
                                  keyFields(forRequest: false) + [("createdAt", millis("When it was registered"))],
                                  required: ["keyId", "teamId", "kind", "topics", "publicKeyPem", "createdAt"]),
            "ProviderKeyCreated": [
                "description": "The registered key; with a generated pair, also its private key (shown once, never"
                    + " stored).",
                "allOf": [ref("ProviderKey"), object("The generated private key.", [
                    ("privateKeyPem", string("PKCS#8 PEM (`BEGIN PRIVATE KEY`), like Apple's `.p8`. Only when"
                                             + " `publicKeyPem` was omitted.")),
                ])],
            ] as JSON,
            "CreateKeyRequest": object("A key to register; a key with the same `keyId` is replaced.",
                                       keyFields(forRequest: true), required: ["keyId", "teamId"], closed: true),
            "KeyList": object("Every key, by key id.", [("keys", array(ref("ProviderKey"), "The keys."))],
                              required: ["keys"]),
        ]
    }

    // MARK: Tokens

    static func tokenSchemas() -> JSON {
        let kinds = DeviceTokenKind.allCases.map(\.rawValue)
        return [
            "DeviceToken": object("A device token: one app on one device in one environment.", [
                ("token", string("Lowercase hex.", example: String(repeating: "ab", count: 32), pattern: hexToken)),
                ("bundleId", string("The app (topic) it belongs to.", example: "com.example.app", pattern: bundle)),
                ("environment", string("Its environment; a push from the other one gets BadDeviceToken.",
                                       choices: environments)),
                ("kind", string("`app` (32 bytes) or `live-activity` (longer).", choices: kinds)),
                ("createdAt", millis("When it was issued")),
                ("unregisteredAt", millis("Set once unregistered: pushes get 410 Unregistered with this timestamp")),
                ("expiredAt", millis("Set once expired: pushes get 410 ExpiredToken")),
                ("deviceId", string("The virtual device owning it, if any.")),
                ("replica", string("With --state-store: the replica whose virtual device holds it (pushes to it are"
                                   + " delivered there, whichever replica accepts them).")),
            ], required: ["token", "bundleId", "environment", "kind", "createdAt"]),
            "CreateTokenRequest": object("A token to issue, or (with `token`) to register as given.", [
                ("bundleId", string("The app.", example: "com.example.app", pattern: bundle)),
                ("environment", string("The environment.", choices: environments)),
                ("kind", string("Default `app`.", choices: kinds)),
                ("token", string("Register exactly this hex token (8–255 bytes, stored lowercase) instead of a random"
                                 + " one; an existing record for it is replaced.", pattern: hexToken)),
            ], required: ["bundleId", "environment"], closed: true),
            "CreateTokensRequest": object("Tokens to issue.", [
                ("count", integer("How many.", minimum: 1, maximum: Int64(ControlAPI.tokenBatchLimit))),
                ("bundleId", string("The app.", example: "com.example.app", pattern: bundle)),
                ("environment", string("The environment.", choices: environments)),
                ("kind", string("Default `app`.", choices: kinds)),
            ], required: ["count", "bundleId", "environment"], closed: true),
            "TokenBatch": object("The tokens issued.", [("tokens", array(string("A hex token."), "In issue order."))],
                                 required: ["tokens"]),
            "TokenList": object("Matching tokens, oldest first.",
                                [("tokens", array(ref("DeviceToken"), "The tokens."))],
                                required: ["tokens"]),
            "TokenTimeRequest": object("When it happened; the body may be empty.", [
                ("at", millis("Default: the emulator clock's now")),
            ], closed: true),
        ]
    }

    // MARK: Journal

    static func journalSchemas() -> JSON {
        let optionalString = { (d: String) in string(d) }
        return [
            "JournalEntry": object("One APNs request and the emulator's answer.", [
                ("id", integer("Increasing sequence number; survives `DELETE /_emulator/journal` (poll with"
                               + " `after`).", minimum: 1)),
                ("receivedAt", millis("When it arrived")),
                ("connectionId", integer("The HTTP/2 connection it came on.", minimum: 0)),
                ("environment", string("Environment it was answered in.", choices: environments)),
                ("method", optionalString(":method.")),
                ("path", optionalString(":path.")),
                ("token", optionalString("Device token from the path (lowercase), if any.")),
                ("topic", optionalString("apns-topic.")),
                ("pushType", optionalString("apns-push-type (as sent, or the default applied).")),
                ("priority", integer("apns-priority.")),
                ("expiration", integer("apns-expiration (UNIX seconds).")),
                ("collapseId", optionalString("apns-collapse-id.")),
                ("headers", array(array(["type": "string"] as JSON, "[name, value]", minItems: 2, maxItems: 2),
                                  "Request headers in order (authorization reduced to its JWT header).")),
                ("payload", optionalString("The payload as text (absent when empty or not UTF-8).")),
                ("authMode", string("How the request authenticated.", choices: ["token", "certificate", "none"])),
                ("authOutcome", optionalString("`accepted`, `fault`, or the auth reason that rejected it.")),
                ("teamId", optionalString("JWT team id (token auth).")),
                ("keyId", optionalString("JWT key id (token auth).")),
                ("status", integer("HTTP status answered (0: the stream was reset by a fault).", minimum: 0,
                                   maximum: 599)),
                ("reason", optionalString("APNs reason of an error answer.")),
                ("timestamp", millis("410 only: when the token stopped being valid")),
                ("apnsId", optionalString("apns-id of the response (echoed or generated).")),
                ("apnsUniqueId", optionalString("apns-unique-id (sandbox successes).")),
                ("durationMicros", integer("µs from when the server read the request to its answer (not counting injected delays).", minimum: 0)),
                ("faultId", optionalString("The fault rule that shaped the answer.")),
                ("warnings", array(["type": "string"] as JSON, "Notes, e.g. defaults applied.")),
            ], required: ["id", "receivedAt", "environment", "method", "path", "status", "apnsId"]),
            "JournalList": object("Matching entries, oldest first.",
                                  [("entries", array(ref("JournalEntry"), "The entries."))],
                                  required: ["entries"]),
            "JournalSettings": object("Journal recording settings.", [
                ("enabled", boolean("Whether requests are recorded.")),
                ("capacity", integer("Entries kept; the oldest are dropped beyond it.", minimum: 1)),
                ("size", integer("Entries held now.", minimum: 0)),
                ("dropped", integer("Entries dropped for capacity or memory since start.", minimum: 0)),
                ("memoryBytes", integer("Memory the kept entries occupy, in bytes (repeated fields and bodies are"
                                        + " stored once per 256 KiB block).", minimum: 0)),
                ("memoryLimitBytes", integer("What the entries may occupy (256 MiB); beyond it the oldest are dropped."
                                             + " An entry keeps 4 KiB of each header value and 16 KiB of the body,"
                                             + " and its warnings say what was cut.", minimum: 0)),
            ], required: ["enabled", "capacity", "size", "dropped", "memoryBytes", "memoryLimitBytes"]),
            "JournalSettingsUpdate": object("New settings; omitted fields stay unchanged.", [
                ("enabled", boolean("Record requests (turn off for load tests).")),
                ("capacity", integer("Entries kept (a smaller cap keeps the newest).", minimum: 1,
                                     maximum: ControlAPI.maxJournalCapacity)),
            ], closed: true),
        ]
    }

    // MARK: Faults

    static func faultSchemas() -> JSON {
        let reasons = APNsReason.allCases.map(\.rawValue)
        func variant(_ type: String, _ description: String, _ extra: [(String, JSON)],
                     required: [String] = []) -> JSON {
            object(description, [("type", string("Action type.", choices: [type]))] + extra,
                   required: ["type"] + required, closed: true)
        }
        return [
            "FaultActionReason": variant("reason", "Answer with this APNs reason and its status instead of processing.",
                                         [("reason", string("Apple's reason string.", example: "BadDeviceToken",
                                                            choices: reasons))],
                                         required: ["reason"]),
            "FaultActionDelay": variant("delay", "Process normally, answer after a delay.",
                                        [("delayMs", integer("Delay in ms.", minimum: 0,
                                                             maximum: ControlAPIValidation.maxDelayMillis))],
                                        required: ["delayMs"]),
            "FaultActionResetStream": variant("reset-stream",
                                              "Reset the stream (RST_STREAM INTERNAL_ERROR), no answer.", []),
            "FaultActionGoAway": variant("goaway", "Answer, then GOAWAY with `{\"reason\": reason}` and close.",
                                         [("reason", string("Reason in the GOAWAY payload (default `Shutdown`).",
                                                            example: "Shutdown", choices: reasons))]),
            "FaultActionShutdown": variant("shutdown", "Answer 503 Shutdown and send GOAWAY.", []),
            "FaultAction": [
                "description": "What a matching request suffers.",
                "oneOf": ["Reason", "Delay", "ResetStream", "GoAway", "Shutdown"].map { ref("FaultAction" + $0) },
                "discriminator": [
                    "propertyName": "type",
                    "mapping": [
                        "reason": "#/components/schemas/FaultActionReason",
                        "delay": "#/components/schemas/FaultActionDelay",
                        "reset-stream": "#/components/schemas/FaultActionResetStream",
                        "goaway": "#/components/schemas/FaultActionGoAway",
                        "shutdown": "#/components/schemas/FaultActionShutdown",
                    ],
                ] as JSON,
            ] as JSON,
            "FaultRule": object("An injected misbehaviour and which APNs requests it hits (first match wins).", [
                ("id", string("Rule id.", example: "bad-token-once", pattern: "^[A-Za-z0-9._-]{1,64}$")),
                ("token", string("Hits this device token only (lowercase hex).", pattern: hexToken)),
                ("topic", string("Hits this apns-topic only.", pattern: bundle)),
                ("action", ref("FaultAction")),
                ("remaining", integer("Requests it still hits (absent: until removed).", minimum: 0)),
                ("expiresAt", millis("When it stops hitting (absent: never)")),
                ("createdAt", millis("When it was added")),
            ], required: ["id", "action", "createdAt"]),
            "CreateFaultRequest": object("A fault to add; a rule with the same `id` is replaced.", [
                ("id", string("Rule id (default: generated `fault-<uuid>`).", pattern: "^[A-Za-z0-9._-]{1,64}$")),
                ("token", string("Only requests to this device token (either case).", pattern: hexToken)),
                ("topic", string("Only requests with this apns-topic.", pattern: bundle)),
                ("action", ref("FaultAction")),
                ("count", integer("How many requests it hits (default: until removed).", minimum: 1)),
                ("durationMs", integer("How long it lasts from now (default: until removed).", minimum: 1,
                                       maximum: ControlAPIValidation.maxMillis)),
            ], required: ["action"], closed: true),
            "FaultList": object("Every rule, in matching order.", [("faults", array(ref("FaultRule"), "The rules."))],
                                required: ["faults"]),
        ]
    }
}
