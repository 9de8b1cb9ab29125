import APNsEmulator
import EmulatorControl

/// The devices endpoints in the control API's OpenAPI document (served at `/_emulator/openapi.json`).
extension DevicesControlAPI {
    typealias JSON = ControlAPIDocument.JSON
    typealias Doc = ControlAPIDocument

    package var document: ControlAPIDocument.Fragment {
        ControlAPIDocument.Fragment(
            tags: [
                ["name": "devices", "description": "Virtual iPhones and Macs, their apps, plugin calls and user actions."],
                ["name": "deliveries", "description": "What happened to each accepted push on the devices."],
                ["name": "files", "description": "Files service extensions download as attachments."],
            ],
            operations: Self.operations, schemas: Self.schemas)
    }

    static var operations: [ControlAPIDocument.Operation] {
        typealias Op = ControlAPIDocument.Operation
        let d = "/_emulator/devices"
        let app = d + "/{deviceId}/apps/{bundleId}"
        let missing = [404: "No such device (or app)."]
        return [
            Op(id: "listDevices", method: "GET", path: d, tag: "devices", summary: "List devices",
               success: (200, "`{\"devices\": [...]}` in creation order.", "DeviceList")),
            Op(id: "createDevice", method: "POST", path: d, tag: "devices", summary: "Create a device (and install apps)",
               description: "Everything is checked before anything is created.",
               body: ("DeviceCreateRequest", false), success: (201, "The device.", "Device"),
               errors: [409: "A device with this id exists."]),
            Op(id: "createDevices", method: "POST", path: d + ":batch", tag: "devices",
               summary: "Create many devices from one template",
               description: "Devices `{idPrefix}1` … `{idPrefix}{count}` (the prefix defaults to `device-`), each as"
                + " `template` describes (a device without `id`). With `register`, each app asks for alert, sound and"
                + " badge, gets its token and goes to the background, as at its first launch; the answer lists the"
                + " tokens. If any of the ids exists, nothing is created.",
               body: ("DeviceBatchRequest", true), success: (201, "`{\"devices\": [{\"id\", \"tokens\"?}]}`.", "DeviceBatch"),
               errors: [409: "A device with one of the ids exists."]),
            Op(id: "getDevice", method: "GET", path: d + "/{deviceId}", tag: "devices", summary: "One device",
               success: (200, "The device.", "Device"), errors: missing),
            Op(id: "deleteDevice", method: "DELETE", path: d + "/{deviceId}", tag: "devices", summary: "Remove a device",
               description: "Its apps' tokens become Unregistered (410) from now.",
               success: (204, "Removed.", nil), errors: missing),
            Op(id: "deviceAction", method: "POST", path: d + "/{deviceId}/actions", tag: "devices",
               summary: "Go online or offline, or restore from a backup",
               description: "Online delivers what APNs held; restore gives every app a new token on its next GetToken.",
               body: ("DeviceActionRequest", true), success: (200, "The device after the action.", "Device"),
               errors: missing),
            Op(id: "listApps", method: "GET", path: d + "/{deviceId}/apps", tag: "devices", summary: "Installed apps",
               success: (200, "`{\"apps\": [...]}` in install order.", "AppList"), errors: missing),
            Op(id: "installApp", method: "POST", path: d + "/{deviceId}/apps", tag: "devices", summary: "Install an app",
               description: "A reinstall after an uninstall is a new install: a new token.",
               body: ("AppInstallRequest", true), success: (201, "The app.", "App"),
               errors: [404: "No such device.", 409: "Already installed."]),
            Op(id: "getApp", method: "GET", path: app, tag: "devices", summary: "One installed app",
               success: (200, "The app: state, badge, authorization, token.", "App"), errors: missing),
            Op(id: "uninstallApp", method: "DELETE", path: app, tag: "devices", summary: "Uninstall",
               description: "The token becomes Unregistered: pushes get 410 with this moment as `timestamp`.",
               success: (204, "Uninstalled.", nil), errors: missing),
            Op(id: "callPlugin", method: "POST", path: app + "/calls", tag: "devices", summary: "Call the push plugin",
               description: "Returns the call's record; GetToken stays `pending` until the delegate forwards a result.",
               body: ("PluginCallRequest", true), success: (200, "The call.", "PluginCall"), errors: missing),
            Op(id: "listCalls", method: "GET", path: app + "/calls", tag: "devices", summary: "Plugin calls and results",
               success: (200, "`{\"calls\": [...]}` in call order.", "PluginCallList"), errors: missing),
            Op(id: "appAction", method: "POST", path: app + "/actions", tag: "devices", summary: "A user action",
               body: ("AppActionRequest", true), success: (200, "The app after the action.", "App"),
               errors: [404: "No such device, app or notification.",
                        409: "The action does not fit the state (unknown category action, no prompt showing)."]),
            Op(id: "listEvents", method: "GET", path: app + "/events", tag: "devices", summary: "Plugin events, in order",
               query: [Doc.queryParameter("after", Doc.integer("Only events with a greater `seq` (polling).", minimum: 0))],
               success: (200, "`{\"events\": [...]}`.", "PluginEventList"), errors: missing),
            Op(id: "listForwards", method: "GET", path: app + "/forwards", tag: "devices",
               summary: "What the app's delegate did with each OS callback, in order",
               success: (200, "`{\"forwards\": [...]}`.", "ForwardList"), errors: missing),
            Op(id: "getNotificationCentre", method: "GET", path: app + "/notifications", tag: "devices",
               summary: "Notification centre and badge",
               success: (200, "Delivered notifications (newest first), thread groups, badge.", "NotificationCentre"),
               errors: missing),
            Op(id: "listDeliveries", method: "GET", path: "/_emulator/deliveries", tag: "deliveries",
               summary: "Fates of pushes on devices",
               query: [Doc.queryParameter("apnsId", Doc.string("apns-id (either case).")),
                       Doc.queryParameter("deviceId", Doc.string("Device id.")),
                       Doc.queryParameter("bundleId", Doc.string("App bundle id."))],
               success: (200, "`{\"deliveries\": [...]}` oldest first; a push's last step is its fate.", "DeliveryList")),
            Op(id: "settle", method: "POST", path: "/_emulator/settle", tag: "deliveries",
               summary: "Wait until accepted pushes are on their devices",
               description: "APNs answers 200 when it has accepted a push; the device gets it afterwards (after the"
                + " `--delivery-latency`, if one is set). This returns once every push accepted before the call has"
                + " reached its device and its fate is recorded, so a test can read `/_emulator/deliveries` or an"
                + " app's notifications without polling. The body is optional. On a manual clock pushes reach their"
                + " devices as they are accepted and this returns at once.",
               body: ("SettleRequest", false), success: (200, "`{\"settled\": true}`.", "Settled"),
               errors: [503: "The timeout passed first (nothing is lost: call again to keep waiting)."]),
            Op(id: "getAppSDK", method: "GET", path: app + "/sdk", tag: "devices",
               summary: "The managed push SDK in the app",
               description: "Its configuration, whether it collects now, `syncState` (none, queued, synced, refused), the"
                + " records it sent its ingest and those kept for it (`outbox`), the deliveries handed to the app's own"
                + " banner, its session count and foreground time and, for each callback the host handed it, why it did"
                + " or did not send a record (`decisions`: " + KitsDecision.Outcome.allNames + ").",
               success: (200, "`{configuration, collectionEnabled, syncState, records, outbox, decisions, banners, sessionCount,"
                         + " foregroundMillis}`.", nil),
               errors: [404: "No such device or app, or the app does not host the SDK."]),
            Op(id: "listSDKRecords", method: "GET", path: "/_emulator/sdk/records", tag: "devices",
               summary: "What the managed push SDKs sent their ingest",
               description: "The emulator stands in for the SDK's backend: TOKEN (registerAPNsToken: the launch's token and"
                + " the environment registered), RECEIVED (willPresent, or the service extension's receipt), CLICKED (a"
                + " response other than a dismissal, or the in-app banner's recordClick) and SESSION (a real foreground"
                + " entry), oldest first; `source` says which.",
               query: [Doc.queryParameter("deviceId", Doc.string("Device id.")),
                       Doc.queryParameter("bundleId", Doc.string("App bundle id.")),
                       Doc.queryParameter("type", Doc.string("Record type.", choices: KitsRecord.Kind.allCases.map(\.rawValue)))],
               success: (200, "`{\"records\": [{seq, at, type, source, deviceId, bundleId, deliveryId?, token?, environment?, actionIdentifier?}]}`.", nil)),
            Op(id: "getSDKIngest", method: "GET", path: "/_emulator/sdk/ingest", tag: "devices",
               summary: "What the managed SDK's ingest answers", success: (200, "`{\"status\": 200}`.", nil)),
            Op(id: "putSDKIngest", method: "PUT", path: "/_emulator/sdk/ingest", tag: "devices",
               summary: "Make the managed SDK's ingest fail (or work again)",
               description: "`{\"status\": 503}` (any 5xx): records are kept and retried each second (tokens always,"
                + " events with persistNotificationEvents); 401 or 403: dropped, not retried; 200: taken. Reset restores 200.",
               body: ("SDKIngest", true), success: (200, "`{\"status\"}`.", nil)),
            Op(id: "deviceWall", method: "GET", path: "/_emulator/device-wall", tag: "devices",
               summary: "Devices, their notification centres and recent timelines in one answer",
               description: "What the dashboard's device wall draws: the first `limit` devices (creation order) as"
                + " `GET /_emulator/devices` gives them, and for each of their apps the notification centre and the"
                + " newest `recent` plugin events, plugin calls and push fates.",
               query: [Doc.queryParameter("limit", Doc.integer("Most devices in the answer (1-1000, default 50).", minimum: 1, maximum: 1000)),
                       Doc.queryParameter("recent", Doc.integer("Newest events, calls and fates per app (0-200, default 16).", minimum: 0, maximum: 200))],
               success: (200, "`{\"totalDevices\", \"devices\": [...], \"apps\": [{deviceId, bundleId, centre, events, calls, deliveries}]}`.", nil)),
            Op(id: "listFiles", method: "GET", path: "/_emulator/files", tag: "files", summary: "Uploaded files",
               success: (200, "`{\"files\": [{\"name\", \"bytes\"}]}`.", "FileList")),
            Op(id: "putFile", method: "PUT", path: "/_emulator/files/{name}", tag: "files", summary: "Upload a file",
               description: "The raw request body (any bytes, not JSON) is stored; service extensions download it from"
                + " any URL whose path is `/_emulator/files/{name}`.",
               success: (201, "Stored.", "File"), replaces: true, errors: [400: "A name with '/' or spaces."]),
            Op(id: "getFile", method: "GET", path: "/_emulator/files/{name}", tag: "files", summary: "Download a file",
               success: (200, "The bytes (`application/octet-stream`).", nil), errors: [404: "No such file."]),
            Op(id: "deleteFile", method: "DELETE", path: "/_emulator/files/{name}", tag: "files", summary: "Remove a file",
               success: (204, "Removed.", nil), errors: [404: "No such file."]),
        ]
    }

    /// A token's raw bytes as a call argument: hex digits (either case) or a list of byte values.
    static func tokenBytes(nullable: Bool) -> JSON {
        var s: JSON = [
            "description": "The token's raw bytes, as hex digits (either case) or a list of byte values; the plugin"
                + " answers lowercase hex." + (nullable ? " null makes the plugin throw." : ""),
            "oneOf": [Doc.string("Hex digits.", pattern: "^([0-9a-fA-F]{2})*$"),
                      Doc.array(Doc.integer("A byte.", minimum: 0, maximum: 255), "Bytes.")],
        ]
        if nullable { s["nullable"] = true }
        return s
    }

    /// `schema` that also takes JSON null.
    static func nullable(_ schema: JSON) -> JSON {
        var s = schema
        s["nullable"] = true
        return s
    }

    /// A device's fields other than its id (shared by a single device and a batch's template).
    static var deviceFields: [(String, JSON)] {
        let platforms = Platform.allCases.map(\.rawValue)
        return [
            ("name", Doc.string("Display name.")),
            ("platform", Doc.string("Operating system.", choices: platforms)),
            ("osVersion", Doc.string("OS version.", example: "18.0")),
            ("online", Doc.boolean("Reachable by APNs (default true).")),
            ("focus", Doc.boolean("A Focus is on (default false): only time-sensitive and critical notifications"
                                  + " light the screen and sound.")),
            ("muted", Doc.boolean("The ring/silent switch is on silent (default false): only critical alerts sound.")),
            ("backgroundBudgetPerHour", Doc.integer("Background pushes per hour for a suspended app; 0 = unlimited.",
                                                    minimum: 0, maximum: Int64(DeviceConfiguration.maxBackgroundBudgetPerHour))),
            ("apps", Doc.array(Doc.ref("AppInstallRequest"), "Apps to install.")),
        ]
    }

    static var schemas: JSON {
        let platforms = Platform.allCases.map(\.rawValue)
        let builds = BuildKind.allCases.map(\.rawValue)
        let notification = Doc.object("The plugin's `ApnsNotification`.", [
            ("identifier", Doc.string("Request identifier (`apns-collapse-id`, else `apns-id`).")),
            ("title", Doc.string("aps.alert.title")), ("subtitle", Doc.string("aps.alert.subtitle")),
            ("body", Doc.string("aps.alert.body (or the alert string)")),
            ("badge", Doc.integer("aps.badge; 0 when absent")),
            ("sound", Doc.string("Empty when delivered through the delegate; aps.sound for cold start.")),
            ("categoryIdentifier", Doc.string("aps.category")), ("threadIdentifier", Doc.string("aps.thread-id")),
            ("launchImageName", Doc.string("iOS only")), ("targetContentIdentifier", Doc.string("aps.target-content-id")),
            ("interruptionLevel", Doc.integer("0 default (cold start), Passive 1, Active 2, TimeSensitive 3, Critical 4")),
            ("relevanceScore", ["type": "number", "description": "0.0–1.0"] as JSON),
            ("userInfoJson", Doc.string("The whole payload.")),
            ("isRemote", Doc.boolean("False for a local notification.")),
        ])
        let action = Doc.object("A category action.", [
            ("identifier", Doc.string("Action id.")), ("title", Doc.string("Button title.")),
            ("foreground", Doc.boolean("Opens the app.")), ("destructive", Doc.boolean("Shown in red.")),
            ("authenticationRequired", Doc.boolean("Needs an unlocked device.")),
            ("textInput", Doc.boolean("Text-input action.")),
        ], required: ["identifier"])
        let category = Doc.object("A registered category.", [
            ("identifier", Doc.string("Category id (aps.category).")),
            ("actions", Doc.array(Doc.ref("NotificationAction"), "Buttons.")),
            ("customDismissAction", Doc.boolean("Report dismissals to the app.")),
        ], required: ["identifier"])
        let appFields: [(String, JSON)] = [
            ("bundleId", Doc.string("Bundle id.", example: "com.example.app")),
            ("build", Doc.string("How it was built and signed (decides the token's environment).", choices: builds)),
            ("entitlements", Doc.object("Signed entitlements.", [
                ("push", Doc.boolean("aps-environment present (default true).")),
                ("timeSensitive", Doc.boolean("Time-sensitive notifications.")),
                ("criticalAlerts", Doc.boolean("Critical alerts.")),
            ])),
            ("delegate", Doc.object("What the app's delegates do.", [
                ("forwarding", Doc.string("Which callbacks reach the plugin.",
                                          choices: DelegateForwardingMode.allCases.map(\.rawValue))),
                ("setLate", Doc.boolean("Notification-centre delegate set after launch (the launch tap is missed).")),
                ("thirdParty", Doc.string("A package replacing the delegate at the first prompt.",
                                          choices: ThirdPartyDelegate.allCases.map(\.rawValue))),
                ("presentation", Doc.array(Doc.integer("Badge 1, Sound 2, List 3, Banner 4", minimum: 1, maximum: 4),
                                           "What willPresent returns.")),
                ("suppressWhenPayloadHas", Doc.string("willPresent returns nothing when the payload has this key.")),
                ("presentationRules", Doc.array(Doc.object("When the payload matches, willPresent answers these options.", [
                    ("path", Doc.string("Dotted payload path (`custom.a.type`).")),
                    ("equals", Doc.string("The value's text (absent: the path only has to exist).")),
                    ("presentation", Doc.array(Doc.integer("Badge 1, Sound 2, List 3, Banner 4", minimum: 1, maximum: 4),
                                               "Options ([] shows nothing).")),
                ], required: ["path", "presentation"], closed: true), "Checked in order; the first match decides.")),
                ("callbacks", Doc.object("What the delegate does with each callback it forwards: \"forward\""
                                         + " (the default), \"drop\", or {drop, delayMs, with}.",
                                         DelegateCallback.allCases.map { c in
                    (c.rawValue, ["oneOf": [
                        Doc.string("forward or drop.", choices: ["forward", "drop"]),
                        Doc.object("A scripted forward.", [
                            ("drop", Doc.boolean("Never forwarded.")),
                            ("delayMs", Doc.integer("Forwarded this much later (moved by the clock; 250 ms steps on"
                                                    + " the real clock).", minimum: 0, maximum: 3_600_000)),
                            ("with", Doc.object("Arguments passed instead of the OS's (null makes the plugin throw).",
                                                c.arguments.map { ($0, $0 == "deviceToken" ? Self.tokenBytes(nullable: true)
                                                    : Doc.string("Replacement (null allowed"
                                                        + ($0 == "notification" ? "; only null" : "") + ").",
                                                        nullable: true)) }, closed: true)),
                        ], closed: true),
                    ]] as [String: Any])
                }, closed: true)),
            ])),
            ("promptAnswer", Doc.string("The user's answer to the permission prompt.",
                                        choices: PromptAnswer.allCases.map(\.rawValue))),
            ("categories", Doc.array(Doc.ref("NotificationCategory"), "Registered categories.")),
            ("registrationError", Doc.string("Registration fails with this description.")),
            ("serviceExtension", Doc.ref("ServiceExtension")),
            ("contentExtension", Doc.object("The app's Notification Content Extension.", [
                ("categories", Doc.array(Doc.string("category id"), "Categories it draws (UNNotificationExtensionCategory).")),
                ("memoryMB", Doc.integer("Peak memory of its view (default 10).", minimum: 0, maximum: 4096)),
                ("memoryLimitMB", Doc.integer("The watchdog's cap (default 120): over it, the default interface shows.",
                                              minimum: 0, maximum: 4096)),
                ("responseOption", Doc.string("What its didReceive(response) answers for an action while expanded"
                                              + " (absent: it does not implement it; actions go to the app).",
                                              choices: ContentExtensionSettings.ResponseOption.allCases.map(\.rawValue))),
            ], required: ["categories"])),
            ("unknownOutcomeCalls", Doc.array(Doc.string("Plugin method", choices: CallRecord.Call.allCases.map(\.rawValue)),
                                              "Calls the OS answers with something this plugin version does not know"
                                                + " (they end `UnknownOutcome`).")),
            ("firebase", Doc.object("The app links Firebase Messaging: once it has a token, `fcmToken` is its FCM registration"
                                    + " token (`{}` for the sample project).", [
                ("projectNumber", Doc.integer("The Firebase project's number (sender id); default the sample project's.", minimum: 1)),
            ])),
            ("oneSignal", Doc.object("The app links the OneSignal SDK: once it has a token, it has a push subscription"
                                     + " (`{}` for the sample app, not logged in).", [
                ("appId", Doc.string("The OneSignal app (default the sample app).")),
                ("externalId", Doc.string("The user the app logged in as (include_external_user_ids, include_aliases).")),
            ])),
            ("kits", Doc.object("The app hosts the managed push SDK: it registers on every launch and reports received and"
                                + " clicked notifications to its ingest (`GET /_emulator/sdk/records`). `{}` for the defaults.", [
                ("collectionEnabled", Doc.boolean("Collection at initialization (default true); false holds it until"
                                                  + " the `setCollectionEnabled` action.")),
                ("notificationEventsEnabled", Doc.boolean("Received/clicked records (default on); an explicit false stays off.")),
                ("persistNotificationEvents", Doc.boolean("Records kept and retried (default true).")),
                ("apnsEnvironment", Doc.string("Where the SDK registers the token (default production).",
                                               choices: KitsConfiguration.APNsEnvironment.allCases.map(\.rawValue))),
                ("appDelegateBridge", Doc.boolean("The AppDelegate bridge is wired (default true): without it the SDK never gets the token.")),
                ("sceneClickForwarding", Doc.boolean("A Scene app forwards clicks to the SDK (default true).")),
                ("shouldDisplay", Doc.boolean("The SDK's notifications show in the foreground (default true).")),
                ("categories", Doc.array(Doc.ref("NotificationCategory"), "The SDK's own categories, registered with the"
                                         + " app's: at most 32, each with 1 to 3 plain actions, no id shared with the app's.")),
                ("completionHandler", Doc.string("How the host's delegate calls the OS completion handler around the SDK's"
                                                 + " handlers (default once).",
                                                 choices: KitsConfiguration.CompletionHandler.allCases.map(\.rawValue))),
                ("preventDefault", Doc.boolean("A foreground listener prevents the OS presentation: the app draws its own"
                                               + " banner (`recordBannerClick`).")),
                ("receipts", Doc.string("The service extension reports background receipts; what consent it can read.",
                                        choices: KitsConfiguration.ExtensionConsent.allCases.map(\.rawValue))),
                ("appVersion", Doc.string("Reported with sessions (default 1.0).")),
                ("language", Doc.string("The device language reported with sessions (default en-US).")),
                ("handsOverCachedToken", Doc.boolean("The host hands the SDK the token it saved at the first registration,"
                                                     + " not this launch's (after a restore, a token APNs answers 410).")),
            ])),
        ]
        return [
            "ServiceExtension": Doc.object("What the app's Notification Service Extension does with a mutable alert push.", [
                ("title", Doc.string("Sets the title.")), ("subtitle", Doc.string("Sets the subtitle.")),
                ("body", Doc.string("Sets the body.")), ("threadId", Doc.string("Sets the thread identifier.")),
                ("category", Doc.string("Sets the category.")), ("badge", Doc.integer("Sets the badge.")),
                ("sound", Doc.string("Sets the sound.")),
                ("titleFrom", Doc.string("Sets the title from this dotted payload path (`data.title`); the original"
                                         + " stays when the payload has nothing there.")),
                ("subtitleFrom", Doc.string("The same for the subtitle.")),
                ("bodyFrom", Doc.string("The same for the body.")),
                ("threadIdFrom", Doc.string("The same for the thread identifier (`data.thread-id`).")),
                ("categoryFrom", Doc.string("The same for the category.")),
                ("decrypt", Doc.object("Decrypts a payload field (base64 of nonce, ciphertext and tag; AES-256-GCM).", [
                    ("field", Doc.string("Top-level payload key.")), ("key", Doc.string("64 hex digits.")),
                    ("into", Doc.string("Where the text goes.", choices: ["body", "title", "subtitle"])),
                ], required: ["field", "key"])),
                ("attachments", Doc.array(Doc.object("An attachment to download.", [
                    ("identifier", Doc.string("Attachment id.")),
                    ("url", Doc.string("`file://` path or a URL whose path is `/_emulator/files/{name}`.")),
                    ("urlFrom", Doc.string("Instead of `url`: the dotted payload path holding it (`fcm_options.image`).")),
                    ("typeHint", Doc.string("UTI or extension (`public.jpeg`, `mp4`).")),
                ]), "Downloaded in order; each has exactly one of url and urlFrom.")),
                ("downloadMs", Doc.integer("Time per download (default 1000).", minimum: 0, maximum: 3_600_000)),
                ("cachedDownloadMs", Doc.integer("Time for a URL already in the container's cache (default 100).",
                                                 minimum: 0, maximum: 3_600_000)),
                ("processingMs", Doc.integer("Time besides downloads before the handler (default 0).", minimum: 0,
                                             maximum: 3_600_000)),
                ("handler", Doc.string("When the content handler is called.",
                                       choices: ServiceExtensionScript.Handler.allCases.map(\.rawValue))),
                ("timeWillExpire", Doc.string("What serviceExtensionTimeWillExpire does at 29 s.",
                                              choices: ServiceExtensionScript.TimeWillExpire.allCases.map(\.rawValue))),
                ("memoryMB", Doc.integer("Peak memory (default 12).", minimum: 0, maximum: 4096)),
                ("memoryLimitMB", Doc.integer("Memory cap (default 50).", minimum: 0, maximum: 4096)),
            ]),
            "File": Doc.object("A served file.", [("name", Doc.string("Name.")), ("bytes", Doc.integer("Size."))]),
            "FileList": Doc.object("Files.", [("files", Doc.array(Doc.ref("File"), "Files"))], required: ["files"]),
            "ApnsNotification": notification,
            "NotificationAction": action,
            "NotificationCategory": category,
            "AppInstallRequest": Doc.object("An app to install.", appFields, required: ["bundleId"], closed: true),
            "App": Doc.object("An installed app and its state.", appFields + [
                ("lifecycle", Doc.string("Process state.", choices: AppLifecycle.allCases.map(\.rawValue))),
                ("forceQuit", Doc.boolean("Swiped away by the user (until the next launch).")),
                ("badge", Doc.integer("Icon badge.")),
                ("authorizationStatus", Doc.integer("NotDetermined 1, Denied 2, Authorized 3, Provisional 4, Ephemeral 5")),
                ("token", Doc.string("This install's token (after the first registration).")),
                ("tokenEnvironment", Doc.string("Where the token is valid.", choices: ["production", "sandbox"])),
                ("previousTokens", Doc.array(Doc.string("token"), "Tokens of earlier installs (Unregistered).")),
                ("delegateAttachment", Doc.string("Whether the app's delegate is in place.",
                                                  choices: ["attached", "replacedByThirdParty"])),
                ("pendingTokenCall", Doc.integer("The GetToken call waiting for the delegate.")),
                ("promptShowing", Doc.boolean("A permission prompt waits for `answerPrompt`.")),
                ("providesAppNotificationSettings", Doc.boolean("A request asked for ProvidesAppNotificationSettings:"
                                                                + " the OS shows a button to the app's own settings.")),
                ("notificationCount", Doc.integer("Notifications in the centre.")),
                ("pushSDKs", Doc.object("The push SDKs the app links.", [
                    ("firebase", Doc.object("Firebase Messaging.", [("projectNumber", Doc.string("Sender id."))])),
                    ("oneSignal", Doc.object("OneSignal.", [("appId", Doc.string("App.")), ("externalId", Doc.string("User."))])),
                ])),
                ("fcmToken", Doc.string("Firebase Messaging's registration token for the app's token (what an FCM sender addresses).")),
                ("oneSignalSubscriptionId", Doc.string("The OneSignal SDK's push subscription for the app's token.")),
                ("attachmentCacheHits", Doc.integer("Attachment downloads served from the extension's cache.")),
                ("attachmentCacheMisses", Doc.integer("Attachment downloads that were not cached.")),
                ("extensionRunsInProgress", Doc.integer("Service extension runs not yet delivered.")),
                ("coldStartPeek", Doc.ref("ApnsNotification")),
                ("contentSession", Doc.object("The notification expanded last and what its content extension did.", [
                    ("notificationId", Doc.string("The expanded notification.")),
                    ("interface", Doc.string("Whose view shows.", choices: ["custom", "default"])),
                    ("events", Doc.array(Doc.object("A content extension call.", [
                        ("at", Doc.millis("When")),
                        ("event", Doc.string("What.", choices: ["didReceive", "didReceiveResponse", "killed", "closed"])),
                        ("actionIdentifier", Doc.string("didReceiveResponse: the action.")),
                    ]), "In order.")),
                ])),
            ]),
            "AppList": Doc.object("Installed apps.", [("apps", Doc.array(Doc.ref("App"), "Apps"))], required: ["apps"]),
            "DeviceCreateRequest": Doc.object("A device; every field is optional.", [
                ("id", Doc.string("Unique id (default `device-N`).", pattern: "^[A-Za-z0-9._-]{1,64}$")),
            ] + deviceFields, closed: true),
            "DeviceTemplate": Doc.object("What every device of a batch is; its id comes from the batch.", deviceFields,
                                         closed: true),
            "Device": Doc.object("A virtual device.", [
                ("id", Doc.string("Id.")), ("name", Doc.string("Name.")),
                ("platform", Doc.string("Operating system.", choices: platforms)),
                ("osVersion", Doc.string("OS version.")), ("online", Doc.boolean("Reachable by APNs.")),
                ("backgroundBudgetPerHour", Doc.integer("Background push budget.")),
                ("focus", Doc.boolean("A Focus is on (only time-sensitive and critical notifications break through).")),
                ("muted", Doc.boolean("The ring/silent switch is on silent (only critical alerts sound).")),
                ("apps", Doc.array(Doc.ref("App"), "Installed apps.")),
            ]),
            "DeviceList": Doc.object("Devices.", [("devices", Doc.array(Doc.ref("Device"), "Devices"))],
                                     required: ["devices"]),
            "DeviceActionRequest": Doc.object("A device action.", [
                ("action", Doc.string("What happens.", choices: DevicesControlAPI.deviceActionNames)),
            ], required: ["action"], closed: true),
            "PluginCallRequest": Doc.object("A plugin call as the app's code makes it. Each argument its method"
                                            + " takes must be given; null makes the plugin throw"
                                            + " ArgumentNullException.", [
                ("call", Doc.string("The plugin method (`Cancel` fires an earlier call's cancellation token;"
                                    + " `CancelGetToken` is its older name).",
                                    choices: DevicesControlAPI.calls.map(\.name))),
                ("options", nullable(Doc.array(Doc.integer("UNAuthorizationOption: Unspecified 0 (ignored) … Provisional 7",
                                                           minimum: 0, maximum: 7),
                                               "RequestAuthorization's options."))),
                ("count", nullable(Doc.integer("SetBadgeCount's value (negative clears the badge)."))),
                ("callId", Doc.integer("Cancel: the waiting call (GetToken, or RequestAuthorization at the prompt).")),
                ("deviceToken", Self.tokenBytes(nullable: true)),
                ("errorDescription", Doc.string("NotifyDidFailToRegister: the OS error's description (the pending"
                                                + " GetToken's Failure message).", nullable: true)),
                ("notification", ["allOf": [Doc.ref("ApnsNotificationArgument")], "nullable": true] as JSON),
                ("actionIdentifier", Doc.string("NotifyDidReceiveResponse: passed on unchanged (\"\" still fires"
                                                + " NotificationOpened).", nullable: true)),
                ("userInfoJson", Doc.string("NotifyColdStartNotification: the launch payload; \"\", \"{}\" or"
                                            + " anything not a JSON object stores nothing.", nullable: true)),
                ("cancelled", Doc.boolean("The caller's cancellation token was cancelled before the call: it ends"
                                          + " at once with Failure(Cancelled) and does nothing.")),
            ], required: ["call"], closed: true),
            "ApnsNotificationArgument": Doc.object("NotifyWillPresentNotification's and NotifyDidReceiveResponse's"
                                                   + " notification as the app's code builds it; an absent field"
                                                   + " has the empty notification's value.", [
                ("identifier", Doc.string("The request identifier (not a plugin field).")),
                ("title", Doc.string("Title.")), ("subtitle", Doc.string("Subtitle.")), ("body", Doc.string("Body.")),
                ("badge", Doc.integer("Badge.")), ("sound", Doc.string("Sound.")),
                ("categoryIdentifier", Doc.string("Category.")), ("threadIdentifier", Doc.string("Thread.")),
                ("launchImageName", Doc.string("Launch image.")),
                ("targetContentIdentifier", Doc.string("Target content.")),
                ("interruptionLevel", Doc.integer("Unspecified 0 … Critical 4.", minimum: 0, maximum: 4)),
                ("relevanceScore", ["type": "number", "minimum": 0, "maximum": 1, "description": "0.0–1.0."] as [String: Any]),
                ("userInfoJson", Doc.string("The payload as JSON.")),
                ("isRemote", Doc.boolean("A push's notification (default true) or a local one.")),
            ], closed: true),
            "PluginResult": Doc.object("Success (with data), Failure (problem and message) or UnknownOutcome.", [
                ("case", Doc.string("Result case.", choices: ["Success", "Failure", "UnknownOutcome"])),
                ("wireCode", Doc.string("The result's wire code (a success has none).", choices: ["UNKNOWN", "FAILURE"])),
                ("problem", Doc.string("Failure's problem code.", choices: PluginProblem.allCases.map(\.rawValue))),
                ("message", Doc.string("Failure's message.")),
                ("granted", Doc.boolean("RequestAuthorization.")),
                ("authorizationStatus", Doc.integer("GetNotificationSettings.")),
                ("token", Doc.string("GetToken: lowercase hex.")),
                ("environment", Doc.integer("GetProviderEnvironment: Apns 1, ApnsSandbox 2.")),
                ("notification", Doc.ref("ApnsNotification")),
                ("presentationOptions", Doc.array(Doc.integer("UNNotificationPresentationOption"),
                                                  "NotifyWillPresentNotification: always empty (the app's willPresent"
                                                  + " hands its options to the OS).")),
            ], required: ["case"]),
            "PluginCall": Doc.object("A plugin call and its result.", [
                ("callId", Doc.integer("Id within the app.")), ("call", Doc.string("Method.")),
                ("state", Doc.string("Progress (`abandoned`: the app's process ended while the call waited).",
                                     choices: ["pending", "completed", "threw", "abandoned"])),
                ("calledAt", Doc.millis("Called")), ("completedAt", Doc.millis("Ended")),
                ("seq", Doc.integer("Place in the app's ordered log (shared with events).")),
                ("result", Doc.ref("PluginResult")),
                ("exception", Doc.string("`ArgumentNullException` when state is `threw`.")),
                ("parameter", Doc.string("The null parameter.")),
            ], required: ["callId", "call", "state", "calledAt"]),
            "PluginCallList": Doc.object("Calls.", [("calls", Doc.array(Doc.ref("PluginCall"), "Calls"))],
                                         required: ["calls"]),
            "PluginEvent": Doc.object("A plugin event.", [
                ("seq", Doc.integer("Order (shared with call completions).")), ("at", Doc.millis("Fired")),
                ("type", Doc.string("Event.", choices: ["TokenRefreshed", "NotificationPresented", "NotificationOpened"])),
                ("token", Doc.string("TokenRefreshed.")), ("notification", Doc.ref("ApnsNotification")),
                ("actionIdentifier", Doc.string("NotificationOpened.")),
                ("userText", Doc.string("NotificationOpened from a text-input action.")),
            ], required: ["seq", "at", "type"]),
            "Forward": Doc.object("What the app's delegate did with one OS callback.", [
                ("seq", Doc.integer("Order (shared with events and call completions).")), ("at", Doc.millis("When")),
                ("callback", Doc.string("The OS callback.", choices: DelegateCallback.allCases.map(\.rawValue))),
                ("method", Doc.string("The plugin method it calls.")),
                ("outcome", Doc.string("`delayed` is followed by `forwarded` or `abandoned`.",
                                       choices: ["forwarded", "dropped", "delayed", "threw", "abandoned", "notForwarded"])),
                ("parameter", Doc.string("threw: the null parameter (ArgumentNullException).")),
                ("code", Doc.string("notForwarded, abandoned: why, as a code.",
                                    choices: ["delegateForwardsNothing", "delegateSetLate", "thirdPartyDelegate",
                                              "localNotification", "processEnded"])),
                ("reason", Doc.string("notForwarded, abandoned: why, in words.")),
            ], required: ["seq", "at", "callback", "method", "outcome"]),
            "ForwardList": Doc.object("Forwards.", [("forwards", Doc.array(Doc.ref("Forward"), "Forwards"))],
                                      required: ["forwards"]),
            "PluginEventList": Doc.object("Events.", [("events", Doc.array(Doc.ref("PluginEvent"), "Events"))],
                                          required: ["events"]),
            "AppActionRequest": Doc.object("A user action; fields that do not apply to the action are refused.", [
                ("action", Doc.string("What the user does.", choices: DevicesControlAPI.appActionNames)),
                ("actionId", Doc.string("action: the category action.")),
                ("text", Doc.string("action: typed text (text-input actions).")),
                ("enabled", Doc.boolean("setNotificationsEnabled, setCollectionEnabled (the managed SDK's consent).")), ("allow", Doc.boolean("answerPrompt.")),
                ("title", Doc.string("postLocalNotification.")), ("body", Doc.string("postLocalNotification.")),
                ("category", Doc.string("postLocalNotification.")), ("threadId", Doc.string("postLocalNotification.")),
                ("categories", Doc.array(Doc.ref("NotificationCategory"),
                                         "setNotificationCategories: the set that replaces the registered one.")),
                ("notificationId", Doc.string("tap, action, dismiss, expand: the notification.")),
                ("deliveryId", Doc.string("recordBannerClick: the delivery whose in-app banner was clicked (default the newest).")),
                ("preservingSDK", Doc.boolean("setNotificationCategories: keep the managed SDK's categories"
                                              + " (categoriesForRegistration(preserving:)).")),
            ], required: ["action"], closed: true),
            "DeliveredNotification": Doc.object("A notification on display.", [
                ("identifier", Doc.string("Request identifier.")), ("apnsId", Doc.string("The push's apns-id.")),
                ("notification", Doc.ref("ApnsNotification")), ("deliveredAt", Doc.millis("Delivered")),
                ("presentation", Doc.array(Doc.string("banner or list"), "How it was presented.")),
                ("soundPlayed", Doc.string("Sound played on arrival.")),
                ("attachments", Doc.array(Doc.object("An attachment.", [
                    ("identifier", Doc.string("Id.")), ("url", Doc.string("Where it came from.")),
                    ("type", Doc.string("Media type.", choices: AttachmentType.allCases.map(\.rawValue))),
                    ("bytes", Doc.integer("Size.")), ("durationSeconds", ["type": "number", "description": "Video length."] as JSON),
                ]), "Media the service extension attached.")),
                ("serviceExtension", Doc.string("How the service extension ended.",
                                                choices: ["completed", "expiredBestAttempt", "timedOut", "killed"])),
                ("serviceExtensionEvents", Doc.array(Doc.object("A step of the extension's run.", [
                    ("at", Doc.millis("When")),
                    ("event", Doc.string("What happened.", choices: ["didReceive", "timeWillExpire", "contentHandler",
                                                                     "killed", "timedOut"])),
                ]), "The service extension's run, in order.")),
                ("attachmentFailures", Doc.array(Doc.object("An attachment that did not make it.", [
                    ("identifier", Doc.string("Id.")), ("url", Doc.string("The URL tried (empty: none found).")),
                    ("code", Doc.string("Why.", choices: AttachmentFailure.Code.allCases.map(\.rawValue))),
                    ("reason", Doc.string("The same in words.")),
                ]), "Attachments the service extension tried and did not attach.")),
                ("contentExtension", Doc.boolean("Drawn by the app's content extension.")),
            ]),
            "NotificationCentre": Doc.object("The notification centre.", [
                ("badge", Doc.integer("Icon badge.")),
                ("notifications", Doc.array(Doc.ref("DeliveredNotification"), "Newest first.")),
                ("groups", Doc.array(Doc.object("A thread group.", [
                    ("threadIdentifier", Doc.string("Thread id (empty: the app's default group).")),
                    ("notificationIds", Doc.array(Doc.string("id"), "Members, newest first.")),
                    ("summaryCount", Doc.integer("The summary's count: each member's summary-arg-count (1 when absent).")),
                    ("summaryArguments", Doc.array(Doc.string("summary-arg"), "Distinct summary-args, newest first.")),
                ]), "Groups by thread id.")),
            ]),
            "PushFate": Doc.object("One step of a push on a device.", [
                ("apnsId", Doc.string("The push's apns-id.")), ("deviceId", Doc.string("Device.")),
                ("bundleId", Doc.string("App.")), ("token", Doc.string("Device token.")),
                ("fate", Doc.string("What happened.", choices: PushFate.Kind.allCases.map(\.rawValue))),
                ("code", Doc.string("Why, as a code.", choices: FateCode.allCases.map(\.name))),
                ("reason", Doc.string("Why, in words.")), ("at", Doc.millis("When")),
                ("notificationId", Doc.string("Its identifier in the notification centre.")),
            ]),
            "DeviceBatchRequest": Doc.object("Many devices.", [
                ("count", Doc.integer("How many.", minimum: 1, maximum: Int64(DevicesControlAPI.batchLimit))),
                ("idPrefix", Doc.string("Ids are this and the device's number (default `device-`); with the number, at"
                                        + " most 64 characters.", pattern: "^[A-Za-z0-9._-]{1,63}$")),
                ("template", Doc.ref("DeviceTemplate")),
                ("register", Doc.boolean("Authorize each app and get its token (default false).")),
            ], required: ["count"], closed: true),
            "DeviceBatch": Doc.object("The devices created.", [
                ("devices", Doc.array(Doc.object("A device.", [
                    ("id", Doc.string("Its id.")),
                    ("tokens", ["type": "object", "additionalProperties": ["type": "string"],
                                "description": "Bundle id → token (with `register`)."] as JSON),
                ], required: ["id"]), "In order.")),
            ], required: ["devices"]),
            "SDKIngest": Doc.object("What the ingest answers the managed SDK.", [
                ("status", Doc.integer("200, 401, 403 or a 5xx status.", minimum: 200, maximum: 599)),
            ], required: ["status"], closed: true),
            "SettleRequest": Doc.object("How long to wait.", [
                ("timeoutSeconds", ["type": "number", "maximum": 300,
                                    "description": "Seconds to wait at most, above 0 (default 30)."] as JSON),
            ], closed: true),
            "Settled": Doc.object("Every push accepted before the call is on its device.",
                                  [("settled", Doc.boolean("Always true."))], required: ["settled"]),
            "DeliveryList": Doc.object("Fates.", [("deliveries", Doc.array(Doc.ref("PushFate"), "Steps"))],
                                       required: ["deliveries"]),
        ]
    }
}
