import APNsEmulator
import EmulatorControl
import WireBytes

/// Strict readers of the devices endpoints' bodies. As everywhere in the control API: every field is read,
/// `finish()` refuses unknown ones, and only then are values checked and used.
package enum DeviceRequestReaders {
    /// A string field that must be one of an enum's raw values.
    static func enumValue<E: RawRepresentable & CaseIterable>(_ type: E.Type, _ text: String?, field: String)
        throws(ControlAPIError) -> E? where E.RawValue == String
    {
        guard let text else { return nil }
        guard let value = E(rawValue: text) else {
            let choices = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw ControlAPIError.invalid(field, mustBe: "one of \(choices)", got: "\"\(text)\"")
        }
        return value
    }

    /// Integers that must be raw values of an integer enum (`options[1]`).
    static func intEnums<E: RawRepresentable & CaseIterable>(_ type: E.Type, _ values: [Int64]?, field: String)
        throws(ControlAPIError) -> [E]? where E.RawValue == Int
    {
        guard let values else { return nil }
        var out: [E] = []
        for (i, v) in values.enumerated() {
            guard let e = E(rawValue: Int(clamping: v)) else {
                let choices = E.allCases.map { "\($0.rawValue)" }.joined(separator: ", ")
                throw ControlAPIError.invalid("\(field)[\(i)]", mustBe: "one of \(choices)", got: "\(v)")
            }
            out.append(e)
        }
        return out
    }

    /// Raw bytes given as a string of hex digits (either case) or as a list of numbers 0–255.
    static func bytes(hex: String?, values: [Int64]?, field: String) throws(ControlAPIError) -> [UInt8]? {
        if let values {
            var out: [UInt8] = []
            for (i, v) in values.enumerated() {
                guard let b = UInt8(exactly: v) else {
                    throw ControlAPIError.invalid("\(field)[\(i)]", mustBe: "a byte (0–255)", got: "\(v)")
                }
                out.append(b)
            }
            return out
        }
        guard let hex else { return nil }
        guard let bytes = Hex.decode(hex) else {
            throw ControlAPIError.invalid(field, mustBe: "an even number of hex digits or a list of bytes",
                                          got: "\"\(hex)\"")
        }
        return bytes
    }

    /// An `ApnsNotification` as the app's code builds it: every field optional (the empty notification's
    /// defaults), read now and checked once the body's fields are known (the closure).
    static func notificationFields(_ r: JSONBodyReader) -> () throws(ControlAPIError) -> ApnsNotification {
        let strings: [(String, WritableKeyPath<ApnsNotification, String>)] = [
            ("identifier", \.identifier), ("title", \.title), ("subtitle", \.subtitle), ("body", \.body),
            ("sound", \.sound), ("categoryIdentifier", \.categoryIdentifier),
            ("threadIdentifier", \.threadIdentifier), ("launchImageName", \.launchImageName),
            ("targetContentIdentifier", \.targetContentIdentifier), ("userInfoJson", \.userInfoJson),
        ]
        let values = strings.map { (name, path) in (path, r.string(name)) }
        let badge = r.int64("badge")
        let level = r.int64("interruptionLevel")
        let relevance = r.double("relevanceScore")
        let isRemote = r.bool("isRemote")
        let prefix = r.path("")
        return { () throws(ControlAPIError) -> ApnsNotification in
            var n = ApnsNotification.empty
            n.isRemote = isRemote ?? true
            for (path, value) in values { if let value { n[keyPath: path] = value } }
            if let badge {
                guard let b = Int32(exactly: badge) else {
                    throw ControlAPIError.invalid(prefix + "badge", mustBe: "a 32-bit integer", got: "\(badge)")
                }
                n.badge = Int(b)
            }
            if let level {
                guard let l = InterruptionLevel(rawValue: Int(clamping: level)) else {
                    throw ControlAPIError.invalid(prefix + "interruptionLevel", mustBe: "one of 0, 1, 2, 3, 4",
                                                  got: "\(level)")
                }
                n.interruptionLevel = l
            }
            if let relevance {
                guard (0...1).contains(relevance) else {
                    throw ControlAPIError.invalid(prefix + "relevanceScore", mustBe: "from 0.0 to 1.0",
                                                  got: "\(relevance)")
                }
                n.relevanceScore = relevance
            }
            return n
        }
    }

    // MARK: Device

    /// The raw fields of a device body, read (not yet checked).
    package struct DeviceFields {
        var id, name, platform, osVersion: String?
        var online, focus, muted: Bool?
        var budget: Int64?
        var apps: [AppFields]?
    }

    package static func readDevice(_ body: JSONBodyReader) -> DeviceFields {
        DeviceFields(id: body.string("id"), name: body.string("name"), platform: body.string("platform"),
                     osVersion: body.string("osVersion"), online: body.bool("online"),
                     focus: body.bool("focus"), muted: body.bool("muted"),
                     budget: body.int64("backgroundBudgetPerHour"),
                     apps: body.objectArray("apps")?.map(readApp))
    }

    /// - Parameter prefix: where the fields sit in the body, for messages (`template.` in a batch).
    package static func device(_ f: DeviceFields, prefix: String = "") throws(ControlAPIError)
        -> (DeviceConfiguration, [AppConfiguration])
    {
        if let id = f.id {
            guard !id.isEmpty, id.count <= 64, id.utf8.allSatisfy(isIdByte) else {
                throw ControlAPIError.invalid(prefix + "id", mustBe: "1–64 characters of A–Z a–z 0–9 . _ -", got: "\"\(id)\"")
            }
        }
        let platform = try enumValue(Platform.self, f.platform, field: prefix + "platform") ?? .iOS
        if let b = f.budget, !(0...Int64(DeviceConfiguration.maxBackgroundBudgetPerHour)).contains(b) {
            throw ControlAPIError.invalid(prefix + "backgroundBudgetPerHour",
                                          mustBe: "an integer from 0 (unlimited) to \(DeviceConfiguration.maxBackgroundBudgetPerHour)",
                                          got: "\(b)")
        }
        var apps: [AppConfiguration] = []
        for (i, a) in (f.apps ?? []).enumerated() {
            let app = try self.app(a, prefix: "\(prefix)apps[\(i)].")
            if apps.contains(where: { $0.bundleId == app.bundleId }) {
                throw ControlAPIError.invalidField("\(prefix)apps[\(i)].bundleId", message: "'\(app.bundleId)' is listed twice")
            }
            apps.append(app)
        }
        let config = DeviceConfiguration(id: f.id ?? "", name: f.name ?? "", platform: platform,
                                         osVersion: f.osVersion, online: f.online ?? true,
                                         backgroundBudgetPerHour: Int(f.budget ?? 3), focus: f.focus ?? false,
                                         muted: f.muted ?? false)
        return (config, apps)
    }

    static func isIdByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F
            || b == 0x2D
    }

    // MARK: App

    package struct AppFields {
        var bundleId, build, promptAnswer, registrationError: String?
        var unknownOutcomeCalls: [String]?
        var serviceExtension: ExtensionFields?
        var contentExtensionCategories: [String]?
        var contentMemoryMB, contentMemoryLimitMB: Int64?
        var contentResponseOption: String?
        var push, timeSensitive, criticalAlerts: Bool?
        var forwarding, thirdParty, suppressKey: String?
        var setLate: Bool?
        var presentation: [Int64]?
        var categories: [CategoryFields]?
        var callbacks: [CallbackFields] = []
        var presentationRules: [(path: String?, equals: String?, presentation: [Int64]?)]?
        var firebase: (present: Bool, projectNumber: Int64?) = (false, nil)
        var oneSignal: (present: Bool, appId: String?, externalId: String?) = (false, nil, nil)
        var kits: KitsFields?
    }

    /// `kits`: the managed push SDK's options and wiring.
    package struct KitsFields {
        var collectionEnabled, notificationEventsEnabled, persistNotificationEvents: Bool?
        var apnsEnvironment: String?
        var appDelegateBridge, sceneClickForwarding, shouldDisplay: Bool?
        var categories: [CategoryFields]?
        var completionHandler: String?
        var preventDefault: Bool?
        var receipts: String?
        var appVersion, language: String?
        var handsOverCachedToken: Bool?
    }

    /// One entry of `delegate.callbacks`: `"forward"`, `"drop"` or `{"drop"?, "delayMs"?, "with"?}`.
    package struct CallbackFields {
        var callback: DelegateCallback
        var word: String?
        var drop: Bool?
        var delayMs: Int64?
        /// Argument name → given as null, its string, or its list of numbers (`deviceToken`).
        var with: [(name: String, isNull: Bool, text: String?, values: [Int64]?)] = []
        var withGiven = false
    }

    /// Notification categories as the app registers them (`setNotificationCategories`).
    static func categories(_ fields: [CategoryFields]?, field: String) throws(ControlAPIError) -> [NotificationCategory] {
        var categories: [NotificationCategory] = []
        // iOS sets no limit of its own (the 32-category, 3-action limits are a managed push SDK's, for its own
        // registrations); these bounds only keep an app's configuration small. Decision: a category may have no
        // action (iOS allows one registered only for customDismissAction).
        if let all = fields, all.count > maxCategories {
            throw ControlAPIError.invalid(field, mustBe: "at most \(maxCategories) categories (the emulator's bound)",
                                          got: "\(all.count)")
        }
        for (i, c) in (fields ?? []).enumerated() {
            if let actions = c.actions, actions.count > maxActions {
                throw ControlAPIError.invalid("\(field)[\(i)].actions",
                                              mustBe: "at most \(maxActions) actions (the emulator's bound)",
                                              got: "\(actions.count)")
            }
            let itemField = "\(field)[\(i)]"
            let id = c.identifier ?? ""
            guard !id.isEmpty else { throw ControlAPIError.invalid(itemField + ".identifier", mustBe: "a non-empty string") }
            if categories.contains(where: { $0.identifier == id }) {
                throw ControlAPIError.invalidField(itemField + ".identifier", message: "category '\(id)' is registered twice")
            }
            var actions: [NotificationAction] = []
            for (j, a) in (c.actions ?? []).enumerated() {
                let aid = a.identifier ?? ""
                guard !aid.isEmpty else {
                    throw ControlAPIError.invalid("\(itemField).actions[\(j)].identifier", mustBe: "a non-empty string")
                }
                if actions.contains(where: { $0.identifier == aid }) {
                    throw ControlAPIError.invalidField("\(itemField).actions[\(j)].identifier",
                                                       message: "action '\(aid)' appears twice in the category")
                }
                actions.append(NotificationAction(
                    identifier: aid, title: a.title ?? "", foreground: a.foreground ?? false,
                    destructive: a.destructive ?? false, authenticationRequired: a.authenticationRequired ?? false,
                    textInput: a.textInput ?? false))
            }
            categories.append(NotificationCategory(identifier: id, actions: actions,
                                                   customDismissAction: c.customDismissAction ?? false))
        }
        return categories
    }

    static func contentExtension(_ f: AppFields, prefix: String) throws(ControlAPIError) -> ContentExtensionSettings {
        let p = prefix + "contentExtension."
        var settings = ContentExtensionSettings()
        for (name, value) in [("memoryMB", f.contentMemoryMB), ("memoryLimitMB", f.contentMemoryLimitMB)] {
            guard let value else { continue }
            guard (0...4096).contains(value) else {
                throw ControlAPIError.invalid(p + name, mustBe: "megabytes from 0 to 4096", got: "\(value)")
            }
            if name == "memoryMB" { settings.memoryMB = Int(value) } else { settings.memoryLimitMB = Int(value) }
        }
        settings.responseOption = try enumValue(ContentExtensionSettings.ResponseOption.self, f.contentResponseOption,
                                                field: p + "responseOption")
        return settings
    }

    static let maxCategories = 1_000
    static let maxActions = 16

    static func presentationRules(_ fields: [(path: String?, equals: String?, presentation: [Int64]?)]?,
                                  prefix: String) throws(ControlAPIError) -> [PresentationRule] {
        var rules: [PresentationRule] = []
        for (i, r) in (fields ?? []).enumerated() {
            let field = "\(prefix)delegate.presentationRules[\(i)]"
            let path = r.path ?? ""
            if path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains("") {
                throw ControlAPIError.invalid(field + ".path", mustBe: "a dotted payload path such as custom.a.type",
                                              got: "\"\(path)\"")
            }
            let options = try intEnums(PresentationOption.self, r.presentation, field: field + ".presentation") ?? []
            rules.append(PresentationRule(path: path, equals: r.equals, presentation: options))
        }
        return rules
    }

    static func readCallbacks(_ r: JSONBodyReader?) -> [CallbackFields] {
        guard let r else { return [] }
        var out: [CallbackFields] = []
        for callback in DelegateCallback.allCases {
            let name = callback.rawValue
            if r.isString(name) {
                out.append(CallbackFields(callback: callback, word: r.string(name)))
                continue
            }
            guard let o = r.object(name) else { continue }
            var f = CallbackFields(callback: callback, drop: o.bool("drop"), delayMs: o.int64("delayMs"))
            if let w = o.object("with") {
                f.withGiven = true
                for argument in callback.arguments {
                    let isNull = w.isNull(argument)
                    let text = w.isString(argument) ? w.string(argument) : nil
                    // Only a token takes a list (its bytes); anything else that is not a string is refused below.
                    let values = argument == "deviceToken" && text == nil && !isNull ? w.int64Array(argument) : nil
                    if isNull || text != nil || values != nil { f.with.append((argument, isNull, text, values)) }
                    // Anything else is refused by the string reader (a type error naming the field).
                    if argument != "deviceToken" && !isNull && text == nil && w.has(argument) { _ = w.string(argument) }
                }
            }
            out.append(f)
        }
        return out
    }

    static func callbacks(_ fields: [CallbackFields], prefix: String) throws(ControlAPIError)
        -> [DelegateCallback: CallbackScript]
    {
        var out: [DelegateCallback: CallbackScript] = [:]
        for f in fields {
            let field = prefix + "delegate.callbacks." + f.callback.rawValue
            if let word = f.word {
                switch word {
                case "forward": out[f.callback] = CallbackScript()
                case "drop": out[f.callback] = CallbackScript(drop: true)
                default: throw ControlAPIError.invalid(field, mustBe: #""forward", "drop" or an object"#, got: "\"\(word)\"")
                }
                continue
            }
            var script = CallbackScript(drop: f.drop ?? false, delayMillis: f.delayMs ?? 0)
            guard (0...3_600_000).contains(script.delayMillis) else {
                throw ControlAPIError.invalid(field + ".delayMs", mustBe: "from 0 to 3600000 (an hour)",
                                              got: "\(script.delayMillis)")
            }
            if script.drop && (script.delayMillis > 0 || f.withGiven) {
                throw ControlAPIError.invalidField(field, message: "a dropped callback takes no delayMs or with")
            }
            for a in f.with {
                switch a.name {
                case "deviceToken":
                    script.arguments.deviceToken = a.isNull
                        ? .some(nil) : .some(try bytes(hex: a.text, values: a.values, field: field + ".with.deviceToken"))
                case "notification":
                    guard a.isNull else {
                        throw ControlAPIError.invalid(field + ".with.notification", mustBe: "null (only null replaces"
                                                      + " the notification)", got: "\"\(a.text ?? "")\"")
                    }
                    script.arguments.notificationIsNull = true
                case "errorDescription": script.arguments.errorDescription = .some(a.isNull ? nil : a.text)
                case "actionIdentifier": script.arguments.actionIdentifier = .some(a.isNull ? nil : a.text)
                default: script.arguments.userInfoJson = .some(a.isNull ? nil : a.text)
                }
            }
            out[f.callback] = script
        }
        return out
    }

    package struct ExtensionFields {
        var title, subtitle, body, threadId, category, sound, handler, timeWillExpire: String?
        var badge, downloadMs, cachedDownloadMs, processingMs, memoryMB, memoryLimitMB: Int64?
        var decryptField, decryptKey, decryptInto: String?
        var hasDecrypt = false
        var attachments: [(identifier: String?, url: String?, urlFrom: String?, typeHint: String?)]?
        var titleFrom, subtitleFrom, bodyFrom, threadIdFrom, categoryFrom: String?
    }

    static func readExtension(_ e: JSONBodyReader) -> ExtensionFields {
        let d = e.object("decrypt")
        return ExtensionFields(
            title: e.string("title"), subtitle: e.string("subtitle"), body: e.string("body"),
            threadId: e.string("threadId"), category: e.string("category"), sound: e.string("sound"),
            handler: e.string("handler"), timeWillExpire: e.string("timeWillExpire"), badge: e.int64("badge"),
            downloadMs: e.int64("downloadMs"), cachedDownloadMs: e.int64("cachedDownloadMs"),
            processingMs: e.int64("processingMs"), memoryMB: e.int64("memoryMB"), memoryLimitMB: e.int64("memoryLimitMB"),
            decryptField: d?.string("field", required: true), decryptKey: d?.string("key", required: true),
            decryptInto: d?.string("into"), hasDecrypt: d != nil,
            attachments: e.objectArray("attachments")?.map { a in
                // One of url and urlFrom (checked once the body is read).
                (a.string("identifier"), a.string("url"), a.string("urlFrom"), a.string("typeHint"))
            },
            titleFrom: e.string("titleFrom"), subtitleFrom: e.string("subtitleFrom"), bodyFrom: e.string("bodyFrom"),
            threadIdFrom: e.string("threadIdFrom"), categoryFrom: e.string("categoryFrom"))
    }

    static func serviceExtension(_ f: ExtensionFields, prefix: String) throws(ControlAPIError) -> ServiceExtensionScript {
        let p = prefix + "serviceExtension."
        func millis(_ v: Int64?, _ name: String, _ fallback: Int64) throws(ControlAPIError) -> Int64 {
            guard let v else { return fallback }
            guard (0...3_600_000).contains(v) else {
                throw ControlAPIError.invalid(p + name, mustBe: "milliseconds from 0 to 3600000", got: "\(v)")
            }
            return v
        }
        func megabytes(_ v: Int64?, _ name: String, _ fallback: Int) throws(ControlAPIError) -> Int {
            guard let v else { return fallback }
            guard (0...4096).contains(v) else {
                throw ControlAPIError.invalid(p + name, mustBe: "megabytes from 0 to 4096", got: "\(v)")
            }
            return Int(v)
        }
        var decrypt: ServiceExtensionScript.Decrypt?
        if f.hasDecrypt {
            let key = f.decryptKey ?? ""
            guard Hex.decode(key)?.count == 32 else {
                throw ControlAPIError.invalid(p + "decrypt.key", mustBe: "64 hex digits (an AES-256 key)")
            }
            let into = f.decryptInto ?? "body"
            guard ["body", "title", "subtitle"].contains(into) else {
                throw ControlAPIError.invalid(p + "decrypt.into", mustBe: "body, title or subtitle", got: into)
            }
            decrypt = .init(field: f.decryptField ?? "", keyHex: key, into: into)
        }
        var attachments: [ServiceExtensionScript.AttachmentRequest] = []
        for (i, a) in (f.attachments ?? []).enumerated() {
            guard (a.url == nil) != (a.urlFrom == nil) else {
                throw ControlAPIError.invalidField("\(p)attachments[\(i)]",
                                                   message: "give exactly one of 'url' and 'urlFrom' (a payload path)")
            }
            attachments.append(.init(identifier: a.identifier ?? "attachment-\(i + 1)", url: a.url ?? "",
                                     urlFrom: a.urlFrom, typeHint: a.typeHint))
        }
        let urlPaths = (f.attachments ?? []).enumerated().map { ("attachments[\($0.offset)].urlFrom", $0.element.urlFrom) }
        for (name, path) in [("titleFrom", f.titleFrom), ("subtitleFrom", f.subtitleFrom), ("bodyFrom", f.bodyFrom),
                             ("threadIdFrom", f.threadIdFrom), ("categoryFrom", f.categoryFrom)] + urlPaths {
            if let path, path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains("") {
                throw ControlAPIError.invalid(p + name, mustBe: "a dotted payload path such as data.thread-id",
                                              got: "\"\(path)\"")
            }
        }
        var script = ServiceExtensionScript(
            title: f.title, subtitle: f.subtitle, body: f.body, threadId: f.threadId, category: f.category,
            badge: f.badge.map { Int(clamping: $0) }, sound: f.sound, decrypt: decrypt, attachments: attachments,
            downloadMillis: try millis(f.downloadMs, "downloadMs", 1_000),
            cachedDownloadMillis: try millis(f.cachedDownloadMs, "cachedDownloadMs", 100),
            processingMillis: try millis(f.processingMs, "processingMs", 0),
            handler: try enumValue(ServiceExtensionScript.Handler.self, f.handler, field: p + "handler") ?? .calls,
            timeWillExpire: try enumValue(ServiceExtensionScript.TimeWillExpire.self, f.timeWillExpire,
                                          field: p + "timeWillExpire") ?? .deliversBestAttempt,
            memoryMB: try megabytes(f.memoryMB, "memoryMB", 12),
            memoryLimitMB: try megabytes(f.memoryLimitMB, "memoryLimitMB", 50))
        script.from = .init(title: f.titleFrom, subtitle: f.subtitleFrom, body: f.bodyFrom, threadId: f.threadIdFrom,
                            category: f.categoryFrom)
        return script
    }

    struct CategoryFields {
        var identifier: String?
        var customDismissAction: Bool?
        var actions: [(identifier: String?, title: String?, foreground: Bool?, destructive: Bool?,
                       authenticationRequired: Bool?, textInput: Bool?)]?
    }

    static func readCategory(_ c: JSONBodyReader) -> CategoryFields {
        CategoryFields(
            identifier: c.string("identifier", required: true),
            customDismissAction: c.bool("customDismissAction"),
            actions: c.objectArray("actions")?.map { a in
                (a.string("identifier", required: true), a.string("title"), a.bool("foreground"),
                 a.bool("destructive"), a.bool("authenticationRequired"), a.bool("textInput"))
            })
    }

    package static func readApp(_ r: JSONBodyReader) -> AppFields {
        let entitlements = r.object("entitlements")
        let delegate = r.object("delegate")
        let content = r.object("contentExtension")
        let firebase = r.object("firebase")
        let oneSignal = r.object("oneSignal")
        var fields = AppFields(
            bundleId: r.string("bundleId", required: true), build: r.string("build"),
            promptAnswer: r.string("promptAnswer"), registrationError: r.string("registrationError"),
            unknownOutcomeCalls: r.stringArray("unknownOutcomeCalls"),
            serviceExtension: r.object("serviceExtension").map(readExtension),
            contentExtensionCategories: content?.stringArray("categories", required: true),
            contentMemoryMB: content?.int64("memoryMB"), contentMemoryLimitMB: content?.int64("memoryLimitMB"),
            contentResponseOption: content?.string("responseOption"),
            push: entitlements?.bool("push"), timeSensitive: entitlements?.bool("timeSensitive"),
            criticalAlerts: entitlements?.bool("criticalAlerts"),
            forwarding: delegate?.string("forwarding"), thirdParty: delegate?.string("thirdParty"),
            suppressKey: delegate?.string("suppressWhenPayloadHas"), setLate: delegate?.bool("setLate"),
            presentation: delegate?.int64Array("presentation"),
            categories: r.objectArray("categories")?.map(readCategory),
            callbacks: readCallbacks(delegate?.object("callbacks")),
            presentationRules: delegate?.objectArray("presentationRules")?.map { r in
                (r.string("path", required: true), r.string("equals"), r.int64Array("presentation", required: true))
            })
        if let firebase { fields.firebase = (true, firebase.int64("projectNumber")) }
        if let oneSignal { fields.oneSignal = (true, oneSignal.string("appId"), oneSignal.string("externalId")) }
        if let kits = r.object("kits") {
            fields.kits = KitsFields(
                collectionEnabled: kits.bool("collectionEnabled"), notificationEventsEnabled: kits.bool("notificationEventsEnabled"),
                persistNotificationEvents: kits.bool("persistNotificationEvents"), apnsEnvironment: kits.string("apnsEnvironment"),
                appDelegateBridge: kits.bool("appDelegateBridge"), sceneClickForwarding: kits.bool("sceneClickForwarding"),
                shouldDisplay: kits.bool("shouldDisplay"), categories: kits.objectArray("categories")?.map(readCategory),
                completionHandler: kits.string("completionHandler"), preventDefault: kits.bool("preventDefault"),
                receipts: kits.string("receipts"), appVersion: kits.string("appVersion"), language: kits.string("language"),
                handsOverCachedToken: kits.bool("handsOverCachedToken"))
        }
        return fields
    }

    package static func app(_ f: AppFields, prefix: String = "") throws(ControlAPIError) -> AppConfiguration {
        let bundleId = f.bundleId ?? ""
        try ControlAPIValidation.topic(bundleId, field: prefix + "bundleId")
        let build = try enumValue(BuildKind.self, f.build, field: prefix + "build") ?? .development
        let answer = try enumValue(PromptAnswer.self, f.promptAnswer, field: prefix + "promptAnswer") ?? .allow
        let forwarding = try enumValue(DelegateForwardingMode.self, f.forwarding, field: prefix + "delegate.forwarding")
            ?? .correct
        let thirdParty = try enumValue(ThirdPartyDelegate.self, f.thirdParty, field: prefix + "delegate.thirdParty")
            ?? ThirdPartyDelegate.none
        let presentation = try intEnums(PresentationOption.self, f.presentation, field: prefix + "delegate.presentation")
            ?? [.banner, .list, .sound, .badge]
        var unknownOutcomeCalls: [CallRecord.Call] = []
        for (i, name) in (f.unknownOutcomeCalls ?? []).enumerated() {
            guard let call = try enumValue(CallRecord.Call.self, name, field: "\(prefix)unknownOutcomeCalls[\(i)]") else {
                continue
            }
            unknownOutcomeCalls.append(call)
        }
        var categories = try self.categories(f.categories, field: prefix + "categories")
        let sdks = try pushSDKs(f, prefix: prefix)
        // The managed SDK registers its categories together with the host's, keeping them (iOS replaces the whole
        // set on each registration).
        if let kits = sdks.kits {
            for (i, c) in kits.categories.enumerated() where categories.contains(where: { $0.identifier == c.identifier }) {
                throw ControlAPIError.invalidField("\(prefix)kits.categories[\(i)].identifier",
                                                   message: "category '\(c.identifier)' is also one of the app's own categories")
            }
            categories += kits.categories
        }
        return AppConfiguration(
            bundleId: bundleId, build: build,
            entitlements: Entitlements(push: f.push ?? true, timeSensitive: f.timeSensitive ?? false,
                                       criticalAlerts: f.criticalAlerts ?? false),
            delegate: DelegateConfiguration(forwarding: forwarding, setLate: f.setLate ?? false, thirdParty: thirdParty,
                                            presentation: presentation, suppressWhenPayloadHas: f.suppressKey,
                                            presentationRules: try presentationRules(f.presentationRules, prefix: prefix),
                                            callbacks: try callbacks(f.callbacks, prefix: prefix)),
            promptAnswer: answer, categories: categories, registrationError: f.registrationError,
            unknownOutcomeCalls: unknownOutcomeCalls,
            // Receipt reporting lives in a service extension: the SDK's, which changes nothing, unless the app has one.
            serviceExtension: try f.serviceExtension.map { (e) throws(ControlAPIError) in try serviceExtension(e, prefix: prefix) }
                ?? (sdks.kits?.receipts != nil ? ServiceExtensionScript() : nil),
            contentExtensionCategories: f.contentExtensionCategories ?? [],
            contentExtension: try contentExtension(f, prefix: prefix),
            pushSDKs: sdks)
    }

    /// The managed SDK's configuration; its categories within the SDK's own limits.
    static func kits(_ f: KitsFields, prefix: String) throws(ControlAPIError) -> KitsConfiguration {
        let p = prefix + "kits."
        let environment = try enumValue(KitsConfiguration.APNsEnvironment.self, f.apnsEnvironment, field: p + "apnsEnvironment")
        if let all = f.categories, all.count > KitsConfiguration.maxCategories {
            throw ControlAPIError.invalid(p + "categories", mustBe: "at most \(KitsConfiguration.maxCategories) categories"
                                          + " (the SDK's limit)", got: "\(all.count)")
        }
        let categories = try self.categories(f.categories, field: p + "categories")
        for (i, c) in categories.enumerated() {
            guard KitsConfiguration.actionsPerCategory.contains(c.actions.count) else {
                throw ControlAPIError.invalid("\(p)categories[\(i)].actions", mustBe: "1 to 3 actions (the SDK's limit)",
                                              got: "\(c.actions.count)")
            }
            if let j = c.actions.firstIndex(where: \.textInput) {
                throw ControlAPIError.invalidField("\(p)categories[\(i)].actions[\(j)].textInput",
                                                   message: "the SDK's actions are plain buttons: no text input")
            }
        }
        var configuration = KitsConfiguration(
            collectionEnabled: f.collectionEnabled ?? true, notificationEventsEnabled: f.notificationEventsEnabled,
            persistNotificationEvents: f.persistNotificationEvents ?? true, apnsEnvironment: environment ?? .production,
            appDelegateBridge: f.appDelegateBridge ?? true, sceneClickForwarding: f.sceneClickForwarding ?? true,
            shouldDisplay: f.shouldDisplay ?? true, categories: categories,
            completionHandler: try enumValue(KitsConfiguration.CompletionHandler.self, f.completionHandler,
                                             field: p + "completionHandler") ?? .once,
            preventDefault: f.preventDefault ?? false,
            receipts: try enumValue(KitsConfiguration.ExtensionConsent.self, f.receipts, field: p + "receipts"),
            appVersion: f.appVersion ?? "1.0", language: f.language ?? "en-US")
        configuration.handsOverCachedToken = f.handsOverCachedToken ?? false
        return configuration
    }

    static func pushSDKs(_ f: AppFields, prefix: String) throws(ControlAPIError) -> HostedPushSDKs {
        var sdks = HostedPushSDKs()
        if f.firebase.present {
            let number = f.firebase.projectNumber ?? Int64(HostedPushSDKs.sampleFirebaseProjectNumber)
            guard number > 0 else {
                throw .invalidField(prefix + "firebase.projectNumber", message: "\(prefix)firebase.projectNumber must be positive")
            }
            sdks.firebase = .init(projectNumber: UInt64(number))
        }
        if f.oneSignal.present {
            sdks.oneSignal = .init(appId: f.oneSignal.appId ?? HostedPushSDKs.sampleOneSignalAppId, externalId: f.oneSignal.externalId)
        }
        if let kits = f.kits { sdks.kits = try self.kits(kits, prefix: prefix) }
        return sdks
    }
}
