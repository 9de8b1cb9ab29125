import APNsEmulator
import APNsProtocol

/// The JSON shapes of the devices endpoints. Enums the plugin defines as integers (authorization status,
/// presentation options, interruption level, provider environment) are written as those integers.
struct DeviceView: Encodable {
    var id: String
    var name: String
    var platform: Platform
    var osVersion: String
    var online: Bool
    var backgroundBudgetPerHour: Int
    var focus: Bool
    var muted: Bool
    var apps: [AppView]

    init(_ d: VirtualDevice) {
        id = d.id
        name = d.configuration.name
        platform = d.configuration.platform
        osVersion = d.configuration.osVersion
        online = d.configuration.online
        backgroundBudgetPerHour = d.configuration.backgroundBudgetPerHour
        focus = d.configuration.focus
        muted = d.configuration.muted
        apps = d.installedApps.map(AppView.init)
    }
}

struct AppView: Encodable {
    var bundleId: String
    var build: BuildKind
    var entitlements: Entitlements
    var delegate: DelegateConfiguration
    var promptAnswer: PromptAnswer
    var categories: [NotificationCategory]
    var registrationError: String?
    var unknownOutcomeCalls: [String]
    var serviceExtension: ServiceExtensionScript?
    var contentExtension: ContentExtensionView?
    /// The notification the user expanded last and what the content extension did.
    var contentSession: ContentExtensionSession?
    /// What GetColdStartNotification would return now (reading it here does not consume it).
    var coldStartPeek: ApnsNotification
    var attachmentCacheHits: Int
    var attachmentCacheMisses: Int
    var extensionRunsInProgress: Int
    var lifecycle: AppLifecycle
    var forceQuit: Bool
    var badge: Int
    var authorizationStatus: Int
    var token: String?
    /// Where the token is valid (what the sender must register it as).
    var tokenEnvironment: String
    var previousTokens: [String]
    var delegateAttachment: String
    var pendingTokenCall: Int?
    var promptShowing: Bool
    var providesAppNotificationSettings: Bool
    var notificationCount: Int
    var pushSDKs: HostedPushSDKs
    /// Firebase Messaging's registration token for the app's APNs token (when the app links it and has a token).
    var fcmToken: String?
    /// The OneSignal SDK's push subscription for the token (when the app links it and has a token).
    var oneSignalSubscriptionId: String?

    init(_ a: VirtualApp) {
        bundleId = a.bundleId
        build = a.configuration.build
        entitlements = a.configuration.entitlements
        delegate = a.configuration.delegate
        promptAnswer = a.configuration.promptAnswer
        categories = a.configuration.categories
        registrationError = a.configuration.registrationError
        unknownOutcomeCalls = a.configuration.unknownOutcomeCalls.map(\.rawValue)
        serviceExtension = a.configuration.serviceExtension
        let categories = a.configuration.contentExtensionCategories
        let settings = a.configuration.contentExtension
        contentExtension = categories.isEmpty ? nil : ContentExtensionView(
            categories: categories, memoryMB: settings.memoryMB, memoryLimitMB: settings.memoryLimitMB,
            responseOption: settings.responseOption?.rawValue)
        contentSession = a.contentSession
        coldStartPeek = a.plugin.coldStartPeek
        attachmentCacheHits = a.attachmentCacheHits
        attachmentCacheMisses = a.attachmentCacheMisses
        extensionRunsInProgress = a.extensionRuns.count
        lifecycle = a.lifecycle
        forceQuit = a.forceQuit
        badge = a.badge
        authorizationStatus = a.authorizationStatus.rawValue
        token = a.token
        tokenEnvironment = a.configuration.build.tokenEnvironment.rawValue
        previousTokens = a.previousTokens
        delegateAttachment = a.delegateAttachment
        pendingTokenCall = a.pendingTokenCall
        promptShowing = a.promptPending != nil
        providesAppNotificationSettings = a.providesAppNotificationSettings
        notificationCount = a.notifications.count
        pushSDKs = a.configuration.pushSDKs
        fcmToken = a.configuration.pushSDKs.fcmToken(bundleId: a.bundleId, apnsToken: a.token,
                                                     sandbox: a.configuration.build.tokenEnvironment == .sandbox)
        oneSignalSubscriptionId = a.configuration.pushSDKs.oneSignalSubscriptionId(apnsToken: a.token)
    }
}

/// What the delegate did with an OS callback: `{"seq","at","callback","method","outcome","parameter"?,"code"?,"reason"?}`.
struct ForwardView: Encodable {
    var seq: Int
    var at: Millis
    var callback: String
    var method: String
    var outcome: String
    var parameter: String?
    var code: String?
    var reason: String?

    init(_ f: ForwardRecord) {
        code = f.code?.rawValue
        seq = f.seq
        at = f.at
        callback = f.callback.rawValue
        method = f.callback.method.rawValue
        outcome = f.outcome.rawValue
        parameter = f.parameter
        reason = f.reason
    }
}

/// A plugin event: `{"seq","at","type","token"|"notification","actionIdentifier","userText"}`.
struct EventView: Encodable {
    var seq: Int
    var at: Millis
    var type: String
    var token: String?
    var notification: ApnsNotification?
    var actionIdentifier: String?
    var userText: String?

    init(_ e: RecordedEvent) {
        seq = e.seq
        at = e.at
        switch e.event {
        case .tokenRefreshed(let t):
            type = "TokenRefreshed"
            token = t
        case .notificationPresented(let n):
            type = "NotificationPresented"
            notification = n
        case .notificationOpened(let n, let action, let text):
            type = "NotificationOpened"
            notification = n
            actionIdentifier = action
            userText = text
        }
    }
}

/// A call and its result: `{"callId","call","state":"pending"|"completed"|"threw","result":{...}}`.
struct CallView: Encodable {
    var callId: Int
    var call: String
    var state: String
    var calledAt: Millis
    var completedAt: Millis?
    var seq: Int?
    var result: ResultView?
    /// `ArgumentNullException` when a null argument made the plugin throw.
    var exception: String?
    var parameter: String?

    init(_ c: CallRecord) {
        callId = c.callId
        call = c.call.rawValue
        calledAt = c.calledAt
        completedAt = c.completedAt
        seq = c.seq
        switch c.state {
        case .pending:
            state = "pending"
        case .completed(let r):
            state = "completed"
            result = ResultView(r)
        case .threwArgumentNull(let p):
            state = "threw"
            exception = "ArgumentNullException"
            parameter = p
        case .abandoned:
            state = "abandoned"
        }
    }
}

/// `{"case":"Success"|"Failure"|"UnknownOutcome", …data or problem}`.
struct ResultView: Encodable {
    var `case`: String
    /// `UNKNOWN` or `FAILURE` (a success has none).
    var wireCode: String?
    var problem: String?
    var message: String?
    var granted: Bool?
    var authorizationStatus: Int?
    var token: String?
    var environment: Int?
    var notification: ApnsNotification?
    var presentationOptions: [Int]?

    init(_ r: PluginResult) {
        wireCode = r.wireCode
        switch r {
        case .unknownOutcome:
            self.case = "UnknownOutcome"
        case .failure(let p, let m):
            self.case = "Failure"
            problem = p.rawValue
            message = m
        case .success(let v):
            self.case = "Success"
            switch v {
            case .none: break
            case .granted(let g): granted = g
            case .settings(let s): authorizationStatus = s.rawValue
            case .token(let t): token = t
            case .environment(let e): environment = e.rawValue
            case .notification(let n): notification = n
            case .presentationOptions(let o): presentationOptions = o.map(\.rawValue)
            }
        }
    }
}

/// `GET …/notifications`: what the notification centre shows, its groups and the badge.
struct CentreView: Encodable {
    var badge: Int
    var notifications: [DeliveredNotification]
    var groups: [NotificationGroup]

    init(_ a: VirtualApp) {
        badge = a.badge
        notifications = a.notifications
        groups = a.groups
    }
}

/// A file served for service extensions to download.
struct FileView: Encodable {
    var name: String
    var bytes: Int
}

/// `{"categories": [...]}`: the categories the app's content extension draws.
struct ContentExtensionView: Encodable {
    var categories: [String]
    var memoryMB: Int
    var memoryLimitMB: Int
    var responseOption: String?
}

/// `POST /_emulator/settle`'s answer.
struct SettleView: Encodable {
    let settled: Bool
}

/// One device `POST /_emulator/devices:batch` created.
struct BatchDeviceView: Encodable {
    let id: String
    /// Bundle id → token, when the call registered the apps.
    let tokens: [String: String]?
}

/// `GET …/sdk`: the managed push SDK in the app: its configuration, whether it collects now, what it sent the
/// ingest and why it sent or did not send each record.
struct KitsView: Encodable {
    var configuration: KitsConfiguration
    var collectionEnabled: Bool
    /// `syncStates()`: none, queued (the token waits for the ingest) or synced.
    var syncState: String
    var records: [KitsRecord]
    /// Records kept for the ingest while it is down.
    var outbox: [KitsRecord]
    var decisions: [KitsDecision]
    /// Deliveries the foreground listener handed to the app's own banner.
    var banners: [String]
    var sessionCount: Int
    var foregroundMillis: Millis

    init?(_ a: VirtualApp) {
        guard let sdk = a.kits else { return nil }
        configuration = sdk.configuration
        collectionEnabled = sdk.collectionEnabled
        syncState = a.kitsSyncState
        records = a.kitsRecords
        outbox = a.kitsOutbox
        decisions = a.kitsDecisions
        banners = a.kitsBanners
        sessionCount = sdk.sessionCount
        foregroundMillis = sdk.foregroundMillis
    }
}
