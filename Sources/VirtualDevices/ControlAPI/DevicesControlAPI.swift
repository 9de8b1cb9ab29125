import APNsEmulator
import APNsProtocol
import EmulatorControl
import H2Transport

/// Every devices endpoint, by its OpenAPI `operationId`: a closed set, so an unrouted one is a compile error.
enum DevicesOperation: String, CaseIterable, Sendable {
    case listDevices, createDevice, createDevices, getDevice, deleteDevice, deviceAction
    case listApps, installApp, getApp, uninstallApp
    case callPlugin, listCalls, appAction, listEvents, listForwards, getNotificationCentre
    case listDeliveries, settle, deviceWall
    case getAppSDK, listSDKRecords, getSDKIngest, putSDKIngest
    case listFiles, putFile, getFile, deleteFile
}

/// The devices endpoints under `/_emulator/devices`, `/_emulator/deliveries` and `/_emulator/files`, added to
/// the control API, and the farm's other hooks into the emulator (accepted pushes, clock, reset, metrics).
public final class DevicesControlAPI: EmulatorExtension {
    package let farm: DeviceFarm

    package init(farm: DeviceFarm) { self.farm = farm }

    package var routes: [(method: String, pattern: String, operation: String)] {
        let d = "/_emulator/devices"
        let app = d + "/{deviceId}/apps/{bundleId}"
        return [
            ("GET", d, DevicesOperation.listDevices.rawValue),
            ("POST", d, DevicesOperation.createDevice.rawValue),
            ("POST", d + ":batch", DevicesOperation.createDevices.rawValue),
            ("GET", d + "/{deviceId}", DevicesOperation.getDevice.rawValue),
            ("DELETE", d + "/{deviceId}", DevicesOperation.deleteDevice.rawValue),
            ("POST", d + "/{deviceId}/actions", DevicesOperation.deviceAction.rawValue),
            ("GET", d + "/{deviceId}/apps", DevicesOperation.listApps.rawValue),
            ("POST", d + "/{deviceId}/apps", DevicesOperation.installApp.rawValue),
            ("GET", app, DevicesOperation.getApp.rawValue),
            ("DELETE", app, DevicesOperation.uninstallApp.rawValue),
            ("POST", app + "/calls", DevicesOperation.callPlugin.rawValue),
            ("GET", app + "/calls", DevicesOperation.listCalls.rawValue),
            ("POST", app + "/actions", DevicesOperation.appAction.rawValue),
            ("GET", app + "/events", DevicesOperation.listEvents.rawValue),
            ("GET", app + "/forwards", DevicesOperation.listForwards.rawValue),
            ("GET", app + "/notifications", DevicesOperation.getNotificationCentre.rawValue),
            ("GET", app + "/sdk", DevicesOperation.getAppSDK.rawValue),
            ("GET", "/_emulator/sdk/records", DevicesOperation.listSDKRecords.rawValue),
            ("GET", "/_emulator/sdk/ingest", DevicesOperation.getSDKIngest.rawValue),
            ("PUT", "/_emulator/sdk/ingest", DevicesOperation.putSDKIngest.rawValue),
            ("GET", "/_emulator/deliveries", DevicesOperation.listDeliveries.rawValue),
            ("POST", "/_emulator/settle", DevicesOperation.settle.rawValue),
            ("GET", "/_emulator/device-wall", DevicesOperation.deviceWall.rawValue),
            ("GET", "/_emulator/files", DevicesOperation.listFiles.rawValue),
            ("PUT", "/_emulator/files/{name}", DevicesOperation.putFile.rawValue),
            ("GET", "/_emulator/files/{name}", DevicesOperation.getFile.rawValue),
            ("DELETE", "/_emulator/files/{name}", DevicesOperation.deleteFile.rawValue),
        ]
    }

    package var waitingOperations: Set<String> { [DevicesOperation.settle.rawValue] }

    package var operationsWithQuery: Set<String> {
        [DevicesOperation.listEvents.rawValue, DevicesOperation.listDeliveries.rawValue, DevicesOperation.deviceWall.rawValue,
         DevicesOperation.listSDKRecords.rawValue]
    }

    package func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64) {
        farm.accept(push, now: now, readAt: readAt)
    }

    package func clockAdvanced(to now: Millis) {
        farm.tick()
    }

    package func reset() {
        farm.removeAll()
        farm.kitsIngestStatus.store(200, ordering: .relaxed)
    }

    package func shutdown() {
        farm.stop()
    }

    package func prometheusLines() -> [String] {
        let counts = farm.fateCounts(), devices = farm.deviceCount
        var lines = farm.deliveryLatency().prometheusLines()
        lines += ["# HELP apns_emulator_deliveries_total Steps of pushes on virtual devices, by fate.",
                     "# TYPE apns_emulator_deliveries_total counter"]
        for kind in PushFate.Kind.allCases {
            lines.append(#"apns_emulator_deliveries_total{fate="\#(kind.rawValue)"} \#(counts[kind])"#)
        }
        lines += ["# HELP apns_emulator_devices Virtual devices.", "# TYPE apns_emulator_devices gauge",
                  "apns_emulator_devices \(devices)"]
        return lines
    }

    package func perform(_ operation: String, _ request: ControlRequest) throws -> HTTP1Response {
        do {
            return try route(operation, request)
        } catch let error as DeviceError {
            if case .storeFailed = error { throw ControlAPIError.internalFailure(error.description) }
            throw error.isNotFound ? ControlAPIError.notFound(error.description) : ControlAPIError.conflict(error.description)
        }
    }

    private func route(_ name: String, _ request: ControlRequest) throws -> HTTP1Response {
        guard let operation = DevicesOperation(rawValue: name) else {
            throw ControlAPIError.internalFailure("unrouted devices operation \(name)")
        }
        let deviceId = request.parameter("deviceId")
        let bundleId = request.parameter("bundleId")
        switch operation {
        case .listDevices:
            return try ControlAPIResponse.json("devices", farm.devices().map(DeviceView.init))
        case .createDevice:
            return try createDevice(request)
        case .createDevices:
            return try createDevices(request)
        case .getDevice:
            return try ControlAPIResponse.json(DeviceView(farm.device(deviceId)))
        case .deleteDevice:
            try request.expectEmptyBody()
            try farm.removeDevice(deviceId)
            return ControlAPIResponse.noContent()
        case .deviceAction:
            return try deviceAction(request, deviceId)
        case .listApps:
            return try ControlAPIResponse.json("apps", farm.device(deviceId).installedApps.map(AppView.init))
        case .installApp:
            let body = try request.body()
            let fields = DeviceRequestReaders.readApp(body)
            try body.finish()
            let config = try DeviceRequestReaders.app(fields)
            _ = try farm.device(deviceId)
            let app = try farm.install(config, on: deviceId)
            return try ControlAPIResponse.json(AppView(app), status: 201, headers: [
                H2Header("location", "/_emulator/devices/\(deviceId)/apps/\(app.bundleId)")])
        case .getApp:
            return try ControlAPIResponse.json(AppView(farm.app(bundleId, on: deviceId)))
        case .uninstallApp:
            try request.expectEmptyBody()
            try farm.uninstall(bundleId, from: deviceId)
            return ControlAPIResponse.noContent()
        case .callPlugin:
            return try callPlugin(request, deviceId, bundleId)
        case .listCalls:
            return try ControlAPIResponse.json("calls", farm.app(bundleId, on: deviceId).calls.map(CallView.init))
        case .appAction:
            return try appAction(request, deviceId, bundleId)
        case .listEvents:
            var query = request.query
            let after = try query.integer("after", in: 0...Int64(Int32.max))
            try query.finish()
            let events = try farm.app(bundleId, on: deviceId).events.filter { $0.seq > Int(after ?? 0) }
            return try ControlAPIResponse.json("events", events.map(EventView.init))
        case .listForwards:
            return try ControlAPIResponse.json("forwards", farm.app(bundleId, on: deviceId).forwards.map(ForwardView.init))
        case .getNotificationCentre:
            let a = try farm.app(bundleId, on: deviceId)
            return try ControlAPIResponse.json(CentreView(a))
        case .settle:
            return try settle(request)
        case .listFiles:
            let files = farm.files.snapshot()
            return try ControlAPIResponse.json("files", files.keys.sorted().map { FileView(name: $0, bytes: files[$0]?.count ?? 0) })
        case .putFile:
            let name = request.parameter("name")
            guard name.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x2F && $0 < 0x7F }), name.count <= 128 else {
                throw ControlAPIError.invalid("name", mustBe: "1–128 printable characters without '/'", got: name)
            }
            let bytes = request.http.body
            let replaced = farm.files.put(name, bytes)
            return try ControlAPIResponse.json(FileView(name: name, bytes: bytes.count), status: replaced ? 200 : 201,
                                               headers: [H2Header("location", "/_emulator/files/\(name)")])
        case .getFile:
            let name = request.parameter("name")
            guard let bytes = farm.files.get(name) else {
                throw ControlAPIError.notFound("no file '\(name)'")
            }
            return HTTP1Response(status: 200, headers: [
                H2Header("content-type", "application/octet-stream"),
                H2Header(EmulatorVersion.headerName, EmulatorVersion.current),
            ], body: bytes)
        case .deleteFile:
            let name = request.parameter("name")
            guard farm.files.remove(name) else {
                throw ControlAPIError.notFound("no file '\(name)'")
            }
            return ControlAPIResponse.noContent()
        case .getAppSDK:
            let app = try farm.app(bundleId, on: deviceId)
            guard let view = KitsView(app) else { throw ControlAPIError.notFound(DeviceError.noManagedSDK(bundleId).description) }
            return try ControlAPIResponse.json(view)
        case .getSDKIngest:
            try request.expectEmptyBody()
            return try ControlAPIResponse.json(["status": farm.kitsIngestStatus.load(ordering: .relaxed)])
        case .putSDKIngest:
            let body = try request.body()
            let status = body.int64("status", required: true)
            try body.finish()
            guard let status else { throw ControlAPIError.missing("status", "the status the ingest answers") }
            guard status == 200 || status == 401 || status == 403 || (500...599).contains(status) else {
                throw ControlAPIError.invalid("status", mustBe: "200, 401, 403 or a 5xx status", got: "\(status)")
            }
            farm.kitsIngestStatus.store(Int(status), ordering: .relaxed)
            return try ControlAPIResponse.json(["status": Int(status)])
        case .listSDKRecords:
            var query = request.query
            let device = query.string("deviceId")
            let bundle = query.string("bundleId")
            let type = query.string("type")
            try query.finish()
            if let type, KitsRecord.Kind(rawValue: type) == nil {
                throw ControlAPIError.invalidQuery("type", mustBe: KitsRecord.Kind.allCases.map(\.rawValue).joined(separator: ", "),
                                                   got: type)
            }
            let records = farm.devices().filter { device == nil || $0.id == device }.flatMap { d in
                d.installedApps.filter { bundle == nil || $0.bundleId == bundle }.flatMap { app in
                    app.kitsRecords.filter { type == nil || $0.type.rawValue == type }
                }
            }.sorted { ($0.at, $0.deviceId, $0.seq) < ($1.at, $1.deviceId, $1.seq) }
            return try ControlAPIResponse.json("records", records)
        case .deviceWall:
            var query = request.query
            let limit = try query.integer("limit", in: 1...1000) ?? 50
            let recent = try query.integer("recent", in: 0...200) ?? 16
            try query.finish()
            return try ControlAPIResponse.json(DeviceWallView(farm: farm, limit: Int(limit), recent: Int(recent)))
        case .listDeliveries:
            var query = request.query
            let apnsId = query.string("apnsId")
            let device = query.string("deviceId")
            let bundle = query.string("bundleId")
            try query.finish()
            return try ControlAPIResponse.json("deliveries", farm.fates(apnsId: apnsId, deviceId: device,
                                                                   bundleId: bundle))
        }
    }

    /// `POST /devices`: the device and the apps listed with it, all checked before anything is created.
    private func createDevice(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let fields = DeviceRequestReaders.readDevice(body)
        try body.finish()
        let (config, apps) = try DeviceRequestReaders.device(fields)
        let device = try farm.createDevice(config, apps: apps)
        return try ControlAPIResponse.json(DeviceView(device), status: 201, headers: [
            H2Header("location", "/_emulator/devices/\(device.id)")])
    }

    /// `POST /devices:batch {"count", "idPrefix"?, "template"?, "register"?}` → 201 with every device's id and, when
    /// registered, its apps' tokens: many devices in one call (a load test's thousands).
    private func createDevices(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let count = body.int64("count", required: true)
        let prefix = body.string("idPrefix") ?? "device-"
        let register = body.bool("register") ?? false
        let template = body.object("template").map(DeviceRequestReaders.readDevice)
        try body.finish()
        guard let count, (1...Int64(DevicesControlAPI.batchLimit)).contains(count) else {
            throw ControlAPIError.invalid("count", mustBe: "an integer from 1 to \(DevicesControlAPI.batchLimit)",
                                          got: count.map { "\($0)" })
        }
        if template?.id != nil {
            throw ControlAPIError.invalid("template.id", mustBe: "absent (each device's id is idPrefix and its number)")
        }
        let longest = 64 - String(count).count
        guard !prefix.isEmpty, prefix.count <= longest, prefix.utf8.allSatisfy(DeviceRequestReaders.isIdByte) else {
            throw ControlAPIError.invalid("idPrefix", mustBe: "1–\(longest) characters of A–Z a–z 0–9 . _ - (an id is at"
                                          + " most 64 with its number)", got: JSONValueKind.describe(prefix))
        }
        let (config, apps) = try DeviceRequestReaders.device(template ?? DeviceRequestReaders.DeviceFields(),
                                                             prefix: "template.")
        guard Int(count) * max(1, apps.count) <= DevicesControlAPI.batchLimit else {
            throw ControlAPIError.invalid("count", mustBe: "at most \(DevicesControlAPI.batchLimit) installs in all"
                                          + " (count × the template's apps)", got: "\(count) × \(apps.count)")
        }
        for i in 1...Int(count) where farm.deviceExists("\(prefix)\(i)") {
            throw ControlAPIError.conflict("a device with id '\(prefix)\(i)' exists; nothing was created")
        }
        var made: [BatchDeviceView] = []
        made.reserveCapacity(Int(count))
        for i in 1...Int(count) {
            var c = config
            c.id = "\(prefix)\(i)"
            if c.name.isEmpty { c.name = c.id }
            let device = try farm.createDevice(c, apps: apps)
            var tokens: [String: String] = [:]
            if register {
                for app in apps {
                    // What an app's first launch does: ask for alert, sound and badge, get a token, go to the background.
                    _ = try farm.call(.requestAuthorization(options: [.badge, .sound, .alert]), bundleId: app.bundleId,
                                      deviceId: device.id)
                    _ = try farm.call(.getToken, bundleId: app.bundleId, deviceId: device.id)
                    try farm.perform(.background, bundleId: app.bundleId, deviceId: device.id)
                    tokens[app.bundleId] = try farm.app(app.bundleId, on: device.id).token
                }
            }
            made.append(BatchDeviceView(id: device.id, tokens: register ? tokens : nil))
        }
        return try ControlAPIResponse.json("devices", made, status: 201)
    }

    /// Most devices one `POST /devices:batch` creates.
    static let batchLimit = 100_000

    /// `POST /_emulator/settle {"timeoutSeconds"?}`: returns once every push accepted before the call has reached
    /// APNs' delivery and its fate is recorded (shown, stored for an offline device, deferred…).
    private func settle(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let timeout = body.double("timeoutSeconds")
        try body.finish()
        if let timeout, !(timeout > 0 && timeout <= 300) {
            throw ControlAPIError.invalid("timeoutSeconds", mustBe: "a number of seconds above 0 and at most 300", got: "\(timeout)")
        }
        let seconds = timeout ?? 30
        guard farm.settle(timeout: .milliseconds(Int64((seconds * 1000).rounded(.up)))) else {
            throw ControlAPIError.unavailable("\(farm.inFlight) accepted push(es) had not reached their"
                + " devices after \(seconds) s; call again to keep waiting")
        }
        return try ControlAPIResponse.json(SettleView(settled: true))
    }

    /// `POST /devices/{id}/actions {"action": "online"|"offline"|"restore"}`.
    private func deviceAction(_ request: ControlRequest, _ deviceId: String) throws -> HTTP1Response {
        let body = try request.body()
        let action = body.string("action", required: true)
        try body.finish()
        switch action ?? "" {
        case "online": try farm.setOnline(deviceId, true)
        case "offline": try farm.setOnline(deviceId, false)
        case "restore": try farm.restore(deviceId)
        case "focusOn": try farm.setFocus(deviceId, true)
        case "focusOff": try farm.setFocus(deviceId, false)
        case "mute": try farm.setMuted(deviceId, true)
        case "unmute": try farm.setMuted(deviceId, false)
        default:
            throw ControlAPIError.invalid("action", mustBe: "one of " + Self.deviceActionNames.map { "\"\($0)\"" }
                                            .joined(separator: ", "), got: "\"\(action ?? "")\"")
        }
        return try ControlAPIResponse.json(DeviceView(farm.device(deviceId)))
    }

    /// `POST …/calls {"call": "<plugin method>", arguments…, "cancelled"?}` → the call's record.
    private func callPlugin(_ request: ControlRequest, _ deviceId: String, _ bundleId: String) throws -> HTTP1Response {
        let body = try request.body()
        let name = body.string("call", required: true) ?? ""
        let cancelled = body.bool("cancelled") ?? false
        let arguments = Self.callArguments[name] ?? []
        // Every argument is read (so `finish` knows them all) and noted as given, null included.
        var given: Set<String> = []
        for key in Self.argumentNames where body.isNull(key) || body.has(key) { given.insert(key) }
        let options = body.int64Array("options")
        let count = body.int64("count")
        let callId = body.int64("callId")
        let tokenHex = body.isString("deviceToken") ? body.string("deviceToken") : nil
        let tokenValues = tokenHex == nil ? body.int64Array("deviceToken") : nil
        let errorDescription = body.string("errorDescription")
        let notification = body.object("notification").map(DeviceRequestReaders.notificationFields)
        let actionIdentifier = body.string("actionIdentifier")
        let userInfoJson = body.string("userInfoJson")
        try body.finish()
        guard Self.callArguments[name] != nil else {
            let names = Self.calls.map(\.name)
            throw ControlAPIError.invalid("call", mustBe: "one of " + names.map { "\"\($0)\"" }.joined(separator: ", "),
                                          got: "\"\(name)\"")
        }
        let tokenBytes = try DeviceRequestReaders.bytes(hex: tokenHex, values: tokenValues, field: "deviceToken")
        if let extra = given.subtracting(arguments).sorted().first {
            throw ControlAPIError.invalidField(extra, message: "'\(extra)' does not apply to \(name)")
        }
        if let missing = arguments.first(where: { !given.contains($0) }) {
            throw ControlAPIError.missing(missing, "the argument of \(name) (null makes the plugin throw)")
        }
        let call: PluginCall
        switch name {
        case "RequestAuthorization", "LocalRequestAuthorization":
            let o = try DeviceRequestReaders.intEnums(AuthorizationOption.self, options, field: "options")
            call = name == "RequestAuthorization" ? .requestAuthorization(options: o) : .localRequestAuthorization(options: o)
        case "LocalGetNotificationSettings": call = .localGetNotificationSettings
        case "GetNotificationSettings": call = .getNotificationSettings
        case "GetToken": call = .getToken
        case "Cancel", "CancelGetToken": call = .cancel(callId: Int(clamping: callId ?? 0))
        case "GetProviderEnvironment": call = .getProviderEnvironment
        case "GetColdStartNotification": call = .getColdStartNotification
        case "SetBadgeCount", "LocalSetBadgeCount":
            if let count, !(Int64(Int32.min)...Int64(Int32.max)).contains(count) {
                throw ControlAPIError.invalid("count", mustBe: "a 32-bit integer", got: "\(count)")
            }
            call = name == "SetBadgeCount" ? .setBadgeCount(count.map { Int($0) }) : .localSetBadgeCount(count.map { Int($0) })
        case "NotifyDidRegisterForRemoteNotifications": call = .notifyDidRegisterForRemoteNotifications(deviceToken: tokenBytes)
        case "NotifyDidFailToRegister": call = .notifyDidFailToRegister(errorDescription: errorDescription)
        case "NotifyWillPresentNotification": call = .notifyWillPresentNotification(try notification?())
        case "NotifyDidReceiveResponse":
            call = .notifyDidReceiveResponse(try notification?(), actionIdentifier: actionIdentifier)
        default: call = .notifyColdStartNotification(userInfoJson: userInfoJson)
        }
        guard let record = try farm.call(call, alreadyCancelled: cancelled, bundleId: bundleId, deviceId: deviceId) else {
            throw ControlAPIError.notFound("no call \(callId ?? 0) in '\(bundleId)' on '\(deviceId)'")
        }
        return try ControlAPIResponse.json(CallView(record))
    }

    /// `POST /devices/{id}/actions`: the network, a restore, Focus and the ring/silent switch.
    package static let deviceActionNames = ["online", "offline", "restore", "focusOn", "focusOff", "mute", "unmute"]

    /// Each plugin call the control API makes, with the arguments it takes (all of them required: null is the
    /// value that makes the plugin throw). `Cancel` fires an earlier call's cancellation token; `CancelGetToken`
    /// is its older name.
    package static let calls: [(name: String, arguments: [String])] = [
        ("RequestAuthorization", ["options"]), ("GetNotificationSettings", []), ("GetToken", []),
        ("GetProviderEnvironment", []), ("GetColdStartNotification", []), ("SetBadgeCount", ["count"]),
        ("Cancel", ["callId"]), ("CancelGetToken", ["callId"]),
        ("NotifyDidRegisterForRemoteNotifications", ["deviceToken"]), ("NotifyDidFailToRegister", ["errorDescription"]),
        ("NotifyWillPresentNotification", ["notification"]),
        ("NotifyDidReceiveResponse", ["notification", "actionIdentifier"]),
        ("NotifyColdStartNotification", ["userInfoJson"]),
        ("LocalRequestAuthorization", ["options"]), ("LocalGetNotificationSettings", []),
        ("LocalSetBadgeCount", ["count"]),
    ]
    package static let callArguments = Dictionary(uniqueKeysWithValues: calls.map { ($0.name, $0.arguments) })
    package static let argumentNames = Set(callArguments.values.joined()).sorted()

    /// `POST …/actions {"action": …}`: a user action on the app or one of its notifications.
    private func appAction(_ request: ControlRequest, _ deviceId: String, _ bundleId: String) throws -> HTTP1Response {
        let body = try request.body()
        let name = body.string("action", required: true)
        let fields: [String: Any?] = [
            "notificationId": body.string("notificationId"), "actionId": body.string("actionId"),
            "text": body.string("text"), "enabled": body.bool("enabled"), "allow": body.bool("allow"),
            "title": body.string("title"), "body": body.string("body"), "category": body.string("category"),
            "threadId": body.string("threadId"), "deliveryId": body.string("deliveryId"),
            "preservingSDK": body.bool("preservingSDK"),
        ]
        let categoryFields = body.objectArray("categories")?.map(DeviceRequestReaders.readCategory)
        try body.finish()
        let present = Set(fields.filter { $0.value != nil }.keys).union(categoryFields == nil ? [] : ["categories"])
        func only(_ required: Set<String>, optional: Set<String> = []) throws(ControlAPIError) {
            if let extra = present.subtracting(required).subtracting(optional).sorted().first {
                throw ControlAPIError.invalidField(extra, message: "'\(extra)' does not apply to action '\(name ?? "")'")
            }
            if let missing = required.subtracting(present).sorted().first {
                throw ControlAPIError.missing(missing, "required by action '\(name ?? "")'")
            }
        }
        func string(_ k: String) -> String { (fields[k] ?? nil) as? String ?? "" }
        func bool(_ k: String) -> Bool { (fields[k] ?? nil) as? Bool ?? false }
        let action: UserAction
        switch name ?? "" {
        case "launch": try only([]); action = .launch
        case "foreground": try only([]); action = .foreground
        case "background": try only([]); action = .background
        case "forceQuit": try only([]); action = .forceQuit
        case "terminate": try only([]); action = .terminate
        case "tap": try only(["notificationId"]); action = .tap(notificationId: string("notificationId"))
        case "action":
            try only(["notificationId", "actionId"], optional: ["text"])
            action = .action(notificationId: string("notificationId"), actionId: string("actionId"),
                             text: present.contains("text") ? string("text") : nil)
        case "dismiss": try only(["notificationId"]); action = .dismiss(notificationId: string("notificationId"))
        case "setNotificationsEnabled": try only(["enabled"]); action = .setNotificationsEnabled(bool("enabled"))
        case "setCollectionEnabled": try only(["enabled"]); action = .setCollectionEnabled(bool("enabled"))
        case "recordBannerClick":
            try only([], optional: ["deliveryId"])
            action = .recordBannerClick(deliveryId: present.contains("deliveryId") ? string("deliveryId") : nil)
        case "answerPrompt": try only(["allow"]); action = .answerPrompt(allow: bool("allow"))
        case "reattachDelegate": try only([]); action = .reattachDelegate
        case "expand": try only(["notificationId"]); action = .expand(notificationId: string("notificationId"))
        case "collapse": try only([]); action = .collapse
        case "setNotificationCategories":
            // `preservingSDK`: the set the managed SDK's categoriesForRegistration(preserving:) returns, the host's
            // with the SDK's own added; without it the host's set replaces the SDK's too, as on iOS.
            try only(["categories"], optional: ["preservingSDK"])
            var categories = try DeviceRequestReaders.categories(categoryFields, field: "categories")
            if bool("preservingSDK") {
                guard let sdk = try farm.app(bundleId, on: deviceId).configuration.pushSDKs.kits?.categories else {
                    throw DeviceError.noManagedSDK(bundleId)
                }
                if let i = categories.firstIndex(where: { c in sdk.contains { $0.identifier == c.identifier } }) {
                    throw ControlAPIError.invalidField("categories[\(i)].identifier", message: "category '\(categories[i].identifier)'"
                                                       + " is one of the managed SDK's: ids may not collide")
                }
                categories += sdk
            }
            action = .setNotificationCategories(categories)
        case "postLocalNotification":
            try only(["title"], optional: ["body", "category", "threadId"])
            action = .postLocalNotification(title: string("title"), body: string("body"), category: string("category"),
                                            threadId: string("threadId"))
        default:
            throw ControlAPIError.invalid("action", mustBe: "one of " + Self.appActionNames.map { "\"\($0)\"" }
                .joined(separator: ", "), got: "\"\(name ?? "")\"")
        }
        try farm.perform(action, bundleId: bundleId, deviceId: deviceId)
        return try ControlAPIResponse.json(AppView(farm.app(bundleId, on: deviceId)))
    }

    public static let appActionNames = ["launch", "foreground", "background", "forceQuit", "terminate", "tap", "action",
                                 "dismiss", "setNotificationsEnabled", "answerPrompt", "reattachDelegate",
                                 "postLocalNotification", "setNotificationCategories", "expand", "collapse",
                                 "setCollectionEnabled", "recordBannerClick"]
}
