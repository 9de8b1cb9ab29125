import APNsEmulator
import StateStore

/// `paths`: one entry per control operation. Shared answers (401, 400, 413, 500) are added by `Operation`
/// from what the operation takes, so no operation can forget them.
extension ControlAPIDocument {
    /// One documented operation.
    package struct Operation {
        package var id: String
        package var method: String
        package var path: String
        package var tag: String
        package var summary: String
        package var description: String
        package var query: [JSON]
        /// Component schema of the JSON body, and whether a body is required.
        package var body: (schema: String, required: Bool)?
        /// The success answer: status, description, schema (nil: no body).
        package var success: (status: Int, description: String, schema: String?)
        /// Also answered with 200 (a replacement) next to a 201 creation.
        package var replaces: Bool
        /// Error statuses beyond the automatic ones, with their meaning.
        package var errors: [Int: String]
        /// Open even with a control token.
        package var open: Bool
        /// What another server answers through this operation, passed on with its own status and body (a front
        /// door's FCM or OneSignal answer): documented as the default response, and as an alternative to the control
        /// API's error body at each error status.
        package var passesThrough: String?

        package init(id: String, method: String, path: String, tag: String, summary: String, description: String = "",
                     query: [JSON] = [], body: (schema: String, required: Bool)? = nil,
                     success: (status: Int, description: String, schema: String?), replaces: Bool = false,
                     errors: [Int: String] = [:], open: Bool = false, passesThrough: String? = nil) {
            self.id = id
            self.method = method
            self.path = path
            self.tag = tag
            self.summary = summary
            self.description = description
            self.query = query
            self.body = body
            self.success = success
            self.replaces = replaces
            self.errors = errors
            self.open = open
            self.passesThrough = passesThrough
        }

        init(id: ControlOperation, method: String, path: String, tag: String, summary: String, description: String = "",
             query: [JSON] = [], body: (schema: String, required: Bool)? = nil,
             success: (status: Int, description: String, schema: String?), replaces: Bool = false,
             errors: [Int: String] = [:], open: Bool = false) {
            self.init(id: id.rawValue, method: method, path: path, tag: tag, summary: summary, description: description,
                      query: query, body: body, success: success, replaces: replaces, errors: errors, open: open)
        }
    }

    static let pathParameters: [String: String] = [
        "deviceId": "Virtual device id.",
        "bundleId": "Bundle id of an app installed on the device.",
        "notificationId": "Identifier of a delivered notification (its request identifier).",
        "keyId": "10-character key id.",
        "token": "Device token, hex (either case).",
        "id": "Fault rule id.",
    ]

    static func paths(extra: [Operation] = []) -> JSON {
        var paths: [String: JSON] = [:]
        for op in operations() + extra {
            paths[op.path, default: [:]][op.method.lowercased()] = render(op)
        }
        return paths
    }

    package static func render(_ op: Operation) -> JSON {
        var responses: [String: JSON] = [:]
        var headers: JSON = ["x-apns-emulator": ["$ref": "#/components/headers/Version"]]
        if op.success.status == 201 { headers["location"] = ["$ref": "#/components/headers/Location"] }
        var success: JSON = ["description": op.success.description, "headers": headers]
        if let schema = op.success.schema { success["content"] = ["application/json": ["schema": ref(schema)]] }
        responses["\(op.success.status)"] = success
        if op.replaces {
            var replaced = success
            replaced["description"] = "Replaced an existing one with the same identifier."
            replaced["headers"] = ["x-apns-emulator": ["$ref": "#/components/headers/Version"]]
            responses["200"] = replaced
        }
        var errors = op.errors
        if op.body != nil || !op.query.isEmpty {
            errors[400] = errors[400] ?? "Malformed JSON, unknown field or parameter, or a wrong type or value."
        }
        if op.body != nil { errors[413] = "Body too large." }
        if !op.open { errors[401] = "A control token is set and the request did not carry it." }
        if op.method != "GET" { errors[500] = errors[500] ?? "The state store failed." }
        let passedOn: JSON = ["type": "object", "description": op.passesThrough ?? ""]
        for (status, description) in errors {
            let schema: JSON = op.passesThrough == nil ? ref("Error") : ["anyOf": [ref("Error"), passedOn]]
            responses["\(status)"] = [
                "description": op.passesThrough.map { description + " Or: " + $0 } ?? description,
                "headers": ["x-apns-emulator": ["$ref": "#/components/headers/Version"]],
                "content": ["application/json": ["schema": schema]],
            ] as JSON
        }
        if let passesThrough = op.passesThrough {
            responses["default"] = [
                "description": passesThrough,
                "headers": ["x-apns-emulator": ["$ref": "#/components/headers/Version"]],
                "content": ["application/json": ["schema": passedOn]],
            ] as JSON
        }
        var rendered: JSON = [
            "operationId": op.id, "tags": [op.tag], "summary": op.summary, "responses": responses,
        ]
        if !op.description.isEmpty { rendered["description"] = op.description }
        let pathNames = op.path.split(separator: "/").filter { $0.hasPrefix("{") }
            .map { String($0.dropFirst().dropLast()) }
        let parameters: [JSON] = pathNames.map {
            ["name": $0, "in": "path", "required": true, "schema": ["type": "string"],
             "description": pathParameters[$0] ?? $0]
        } + op.query
        if !parameters.isEmpty { rendered["parameters"] = parameters }
        if let body = op.body {
            rendered["requestBody"] = [
                "required": body.required,
                "content": ["application/json": ["schema": ref(body.schema)]],
            ] as JSON
        }
        if op.open { rendered["security"] = [JSON]() }
        return rendered
    }

    package static func queryParameter(_ name: String, _ schema: JSON) -> JSON {
        var s = schema
        let description = s.removeValue(forKey: "description") ?? ""
        return ["name": name, "in": "query", "required": false, "schema": s, "description": description]
    }

    static var journalFilters: [JSON] { [
        queryParameter("token", string("Device token (either case).")),
        queryParameter("topic", string("apns-topic.")),
        queryParameter("apnsId", string("apns-id (either case).")),
        queryParameter("status", integer("HTTP status answered.", minimum: 0, maximum: 599)),
        queryParameter("reason", string("APNs reason, exact case.", example: "BadDeviceToken")),
        queryParameter("after", integer("Only entries with a greater id (for polling).", minimum: 0)),
        queryParameter("limit", integer("At most this many: the newest matches.", minimum: 0,
                                        maximum: Int64(Int32.max))),
    ] }
}

extension ControlAPIDocument {
    static func operations() -> [Operation] {
        let prefix = "/_emulator"
        return [
            Operation(id: .health, method: "GET", path: prefix + "/health", tag: "meta", summary: "Liveness",
                      description: "Always open, even with a control token, so Docker's `HEALTHCHECK` needs no secret.",
                      success: (200, "The emulator is up.", "Health"), open: true),
            Operation(id: .endpoints, method: "GET", path: prefix + "/endpoints", tag: "meta",
                      summary: "Where the listeners are",
                      description: "The `--ready-file` JSON: production and sandbox URLs, control URL, CA path.",
                      success: (200, "The endpoints.", "Endpoints"),
                      errors: [503: "The APNs listeners are not started yet."]),
            Operation(id: .openAPI, method: "GET", path: prefix + "/openapi.json", tag: "meta",
                      summary: "This OpenAPI document", success: (200, "The document.", "OpenAPIDocument")),

            Operation(id: .listKeys, method: "GET", path: prefix + "/keys", tag: "keys", summary: "List keys",
                      success: (200, "Every key.", "KeyList")),
            Operation(id: .createKey, method: "POST", path: prefix + "/keys", tag: "keys", summary: "Register a key",
                      description: "Without `publicKeyPem` a P-256 pair is generated and the response carries"
                        + " `privateKeyPem` (PKCS#8), shown once and never stored.",
                      body: ("CreateKeyRequest", true), success: (201, "Registered.", "ProviderKeyCreated"),
                      replaces: true),
            Operation(id: .getKey, method: "GET", path: prefix + "/keys/{keyId}", tag: "keys", summary: "Get a key",
                      success: (200, "The key.", "ProviderKey"), errors: [404: "No such key."]),
            Operation(id: .deleteKey, method: "DELETE", path: prefix + "/keys/{keyId}", tag: "keys",
                      summary: "Delete a key", success: (204, "Deleted.", nil), errors: [404: "No such key."]),

            Operation(id: .listTokens, method: "GET", path: prefix + "/tokens", tag: "tokens", summary: "List tokens",
                      query: [queryParameter("bundleId", string("Only this app's tokens.")),
                              queryParameter("environment", string("Only this environment's.", choices: environments))],
                      success: (200, "Matching tokens.", "TokenList")),
            Operation(id: .createToken, method: "POST", path: prefix + "/tokens", tag: "tokens",
                      summary: "Issue or register a device token", body: ("CreateTokenRequest", true),
                      success: (201, "Issued.", "DeviceToken"), replaces: true),
            Operation(id: .createTokens, method: "POST", path: prefix + "/tokens:batch", tag: "tokens",
                      summary: "Issue many device tokens",
                      description: "Fresh random tokens of one app and environment, registered as `POST /tokens` would"
                        + " register each.",
                      body: ("CreateTokensRequest", true), success: (201, "`{\"tokens\": [hex…]}` in issue order.", "TokenBatch")),
            Operation(id: .getToken, method: "GET", path: prefix + "/tokens/{token}", tag: "tokens",
                      summary: "Get a token",
                      success: (200, "The token.", "DeviceToken"), errors: [404: "No such token."]),
            Operation(id: .deleteToken, method: "DELETE", path: prefix + "/tokens/{token}", tag: "tokens",
                      summary: "Forget a token (pushes then get BadDeviceToken)", success: (204, "Deleted.", nil),
                      errors: [404: "No such token."]),
            Operation(id: .unregisterToken, method: "POST", path: prefix + "/tokens/{token}/unregister", tag: "tokens",
                      summary: "Unregister a token (the app was uninstalled)",
                      description: "Later pushes get 410 Unregistered with `timestamp` = `unregisteredAt`.",
                      body: ("TokenTimeRequest", false), success: (200, "The updated token.", "DeviceToken"),
                      errors: [404: "No such token."]),
            Operation(id: .expireToken, method: "POST", path: prefix + "/tokens/{token}/expire", tag: "tokens",
                      summary: "Expire a token", description: "Later pushes get 410 ExpiredToken.",
                      body: ("TokenTimeRequest", false), success: (200, "The updated token.", "DeviceToken"),
                      errors: [404: "No such token."]),

            Operation(id: .listJournal, method: "GET", path: prefix + "/journal", tag: "journal",
                      summary: "Query the journal",
                      description: "Filters combine with AND. With `waitSeconds`, an answer that would be empty waits up to that"
                        + " long for a matching entry (a long-poll, with `after` the newest id seen).",
                      query: journalFilters + [queryParameter("waitSeconds", integer(
                          "Wait up to this long for a matching entry (0–30).", minimum: 0, maximum: 30))],
                      success: (200, "Matching entries, oldest first.", "JournalList")),
            Operation(id: .clearJournal, method: "DELETE", path: prefix + "/journal", tag: "journal",
                      summary: "Empty the journal (ids keep increasing)", success: (204, "Emptied.", nil)),
            Operation(id: .countJournal, method: "GET", path: prefix + "/journal/count", tag: "journal",
                      summary: "Count journal entries", query: journalFilters, success: (200, "The count.", "Count")),
            Operation(id: .getJournalSettings, method: "GET", path: prefix + "/journal/settings", tag: "journal",
                      summary: "Journal settings", success: (200, "The settings.", "JournalSettings")),
            Operation(id: .updateJournalSettings, method: "PUT", path: prefix + "/journal/settings", tag: "journal",
                      summary: "Turn the journal off or cap it (load tests)", body: ("JournalSettingsUpdate", true),
                      success: (200, "The settings now in force.", "JournalSettings")),

            Operation(id: .listFaults, method: "GET", path: prefix + "/faults", tag: "faults", summary: "List faults",
                      success: (200, "Every rule.", "FaultList")),
            Operation(id: .createFault, method: "POST", path: prefix + "/faults", tag: "faults", summary: "Add a fault",
                      description: "`count` becomes `remaining`; `durationMs` becomes `expiresAt` = now + duration.",
                      body: ("CreateFaultRequest", true), success: (201, "Added.", "FaultRule"), replaces: true),
            Operation(id: .deleteAllFaults, method: "DELETE", path: prefix + "/faults", tag: "faults",
                      summary: "Remove every fault", success: (204, "Removed.", nil)),
            Operation(id: .getFault, method: "GET", path: prefix + "/faults/{id}", tag: "faults",
                      summary: "Get a fault",
                      success: (200, "The rule.", "FaultRule"), errors: [404: "No such rule."]),
            Operation(id: .deleteFault, method: "DELETE", path: prefix + "/faults/{id}", tag: "faults",
                      summary: "Remove a fault", success: (204, "Removed.", nil), errors: [404: "No such rule."]),

            Operation(id: .reset, method: "POST", path: prefix + "/reset", tag: "state",
                      summary: "Forget keys, tokens, faults and the journal",
                      description: "The sample key comes back if the emulator registers it at start. Takes no body.",
                      success: (204, "Reset.", nil), errors: [400: "The request had a body with fields."]),
            Operation(id: .exportState, method: "GET", path: prefix + "/state", tag: "state",
                      summary: "Export the state",
                      success: (200, "Keys, tokens and faults.", "EmulatorState")),
            Operation(id: .importState, method: "PUT", path: prefix + "/state", tag: "state",
                      summary: "Replace the state with a snapshot",
                      description: "The snapshot is validated whole first (the same rules as the create endpoints);"
                        + " on a 400 nothing changes.",
                      body: ("EmulatorState", true), success: (204, "Imported.", nil)),

            Operation(id: .getClock, method: "GET", path: prefix + "/clock", tag: "clock", summary: "Read the clock",
                      success: (200, "Now, and whether it can be moved.", "Clock")),
            Operation(id: .advanceClock, method: "POST", path: prefix + "/clock/advance", tag: "clock",
                      summary: "Move a manual clock forward", body: ("ClockAdvanceRequest", true),
                      success: (200, "The new time.", "ClockNow"),
                      errors: [409: "The clock follows real time (the emulator was not started with a manual clock)."]),
            Operation(id: .metrics, method: "GET", path: "/metrics", tag: "metrics", summary: "Prometheus metrics",
                      description: "Text exposition format 0.0.4: requests by status and reason and by push type and"
                        + " environment, a response-time histogram, open connections and streams, JWT cache lookups,"
                        + " token refreshes, journal size and deliveries by fate.",
                      success: (200, "Prometheus text (`text/plain; version=0.0.4`).", nil)),
            Operation(id: .stats, method: "GET", path: prefix + "/stats", tag: "metrics", summary: "What senders did",
                      description: "Totals, and per connection: requests, accepted and rejected, requests per second,"
                        + " the concurrency high-water mark and provider-token refreshes; the live shaping settings.",
                      success: (200, "The statistics.", "Stats")),
            Operation(id: .getShaping, method: "GET", path: prefix + "/shaping", tag: "metrics", summary: "Load shaping",
                      success: (200, "The live shaping settings.", "Shaping")),
            Operation(id: .updateShaping, method: "PUT", path: prefix + "/shaping", tag: "metrics",
                      summary: "Change load shaping live",
                      description: "Fields given replace the current ones; connections pick them up at their next"
                        + " request (a new stream limit is advertised then, and in new connections' first SETTINGS).",
                      body: ("ShapingUpdate", true), success: (200, "The settings now in force.", "Shaping")),
            Operation(id: .getCluster, method: "GET", path: prefix + "/cluster", tag: "cluster",
                      summary: "The replicas sharing this emulator's state",
                      description: "With `--state-store`, every replica that reported since the last reset: `running`,"
                        + " `stopped` (it shut down cleanly) or `lost` (its reports stopped). Without one, `shared` is"
                        + " false and the list is empty.",
                      success: (200, "The cluster.", "Cluster")),
            Operation(id: .syncCluster, method: "POST", path: prefix + "/cluster/sync", tag: "cluster",
                      summary: "Wait until every replica has every change",
                      description: "Returns once every live replica has applied every shared change (keys, tokens,"
                        + " faults, shaping, channels, the clock, resets) made before the call, so a sender that"
                        + " registered through one replica may push through any. A replica that hangs holds it up"
                        + " until its report lapses (3 s). Without a shared store it answers at once.",
                      query: [queryParameter("timeoutSeconds", integer("How long to wait (default 10).", minimum: 1,
                                                                       maximum: ControlAPI.maxClusterSyncSeconds))],
                      success: (200, "The change number every live replica has.", "ClusterSync"),
                      errors: [503: "A replica had not caught up in time (the error names it).",
                               500: "The shared store could not be read."]),
            Operation(id: .listClusterDevices, method: "GET", path: prefix + "/cluster/devices", tag: "cluster",
                      summary: "Every replica's virtual devices",
                      description: "Each live replica is asked through its control API (`--advertise-host`); one that"
                        + " does not answer within 5 s is named in `unreachable`.",
                      success: (200, "The devices.", "ClusterDevices"),
                      errors: [409: "This emulator shares no state store."]),
            Operation(id: .findClusterDevice, method: "GET", path: prefix + "/cluster/devices/{deviceId}", tag: "cluster",
                      summary: "A virtual device, from whichever replica holds it",
                      description: "The replica whose report lists the device (reports list up to 1,000 ids each), else"
                        + " the first live replica that knows it (all asked at once): the replica, its endpoints and"
                        + " control URL, and the device.",
                      success: (200, "The device and its replica.", "ClusterDevice"),
                      errors: [404: "No live replica holds it.", 409: "This emulator shares no state store.",
                               503: "No replica that answered holds it, and one did not answer or answered with an error (named)."]),
            Operation(id: .readClusterDeviceApp, method: "GET",
                      path: prefix + "/cluster/devices/{deviceId}/apps/{bundleId}/{view}", tag: "cluster",
                      summary: "An app's events, calls, forwards, notifications or SDK state, through any replica",
                      description: "`view` is `events`, `calls`, `forwards`, `notifications` or `sdk`; the answer is the"
                        + " holding replica's own (its query passed on), with `x-apns-emulator-replica` naming it.",
                      success: (200, "The view, as the holding replica answers it.", nil),
                      errors: [404: "No live replica holds the device, or no such view.",
                               409: "This emulator shares no state store.",
                               503: "The holding replica did not answer, or one that might hold it did not answer or answered with an error."]),
            Operation(id: .listClusterDeliveries, method: "GET", path: prefix + "/cluster/deliveries", tag: "cluster",
                      summary: "Delivery fates across the replicas",
                      description: "Each live replica's fates of pushes that reached its devices (wherever they were"
                        + " accepted), filtered as `GET /_emulator/deliveries` filters them.",
                      query: [queryParameter("apnsId", string("Only this push.")),
                              queryParameter("deviceId", string("Only this device.")),
                              queryParameter("bundleId", string("Only this app."))],
                      success: (200, "The fates.", "ClusterDeliveries"),
                      errors: [409: "This emulator shares no state store."]),
            Operation(id: .listClusterJournal, method: "GET", path: prefix + "/cluster/journal", tag: "cluster",
                      summary: "Every replica's journal entries",
                      description: "In the order the store received them, oldest first; page with `next` as `after`."
                        + " Each replica copies its entries within about 50 ms of answering.",
                      query: [queryParameter("after", string("A position from an earlier page.")),
                              queryParameter("limit", integer("At most this many (default 100).", minimum: 1,
                                                              maximum: ControlAPI.maxClusterJournalLimit))],
                      success: (200, "A page of entries.", "ClusterJournalPage"),
                      errors: [409: "This emulator shares no state store."]),
            Operation(id: .countClusterJournal, method: "GET", path: prefix + "/cluster/journal/count", tag: "cluster",
                      summary: "Count the cluster journal", success: (200, "The count.", "Count"),
                      errors: [409: "This emulator shares no state store."]),
            Operation(id: .clearClusterJournal, method: "DELETE", path: prefix + "/cluster/journal", tag: "cluster",
                      summary: "Empty the cluster journal", description: "Each replica's own journal stays.",
                      success: (204, "Emptied.", nil), errors: [409: "This emulator shares no state store."]),
            Operation(id: .freezeClock, method: "POST", path: prefix + "/clock/freeze", tag: "clock",
                      summary: "Stop a manual clock", description: "Time then moves only through `advance`.",
                      success: (200, "The clock.", "Clock"),
                      errors: [409: "The clock follows real time (the emulator was not started with a manual clock)."]),
            Operation(id: .resumeClock, method: "POST", path: prefix + "/clock/resume", tag: "clock",
                      summary: "Let a manual clock run", description: "Time runs on from where it stands.",
                      success: (200, "The clock.", "Clock"),
                      errors: [409: "The clock follows real time (the emulator was not started with a manual clock)."]),
        ]
    }
}
