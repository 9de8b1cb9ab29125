import APNsEmulator
import APNsProtocol

/// One installed app on a virtual device: the OS's view of it (lifecycle, authorization, badge,
/// notification centre, registration) plus its delegates and the push plugin inside it.
///
/// ### Overview
/// Everything that happens to the app goes through here: plugin calls (`+Calls`), pushes
/// (`+Delivery`) and user actions (`+UserActions`). Each path runs the OS model, passes the OS
/// callbacks through the delegate-forwarding table, feeds what arrives to the plugin and journals the
/// plugin's actions in order (`events`, `calls`, one sequence for both).
///
/// ### Implementation
/// A value type owned by its `VirtualDevice` inside its device shard's lock; no I/O, time comes in the
/// `OSContext`. Token issuance goes through the context's `TokenRegistrar`.
public struct VirtualApp: Sendable {
    public internal(set) var configuration: AppConfiguration
    var process = AppProcess()
    public internal(set) var badge = 0
    /// The token the OS issued to this install (nil until the first registration).
    public internal(set) var token: String? {
        didSet { if tokenBefore == nil { tokenBefore = .some(oldValue) } }
    }
    /// The token before its first change since the farm last took it (`.some(nil)`: there was none). The farm
    /// keeps its token→owner map in step after every operation on the app (and ends a run of pushes at one that
    /// set this); this way it learns of a change without copying the token out before and after each push.
    var tokenBefore: String??
    /// Tokens of earlier installs on this device (unregistered).
    public internal(set) var previousTokens: [String] = []
    public internal(set) var events: [RecordedEvent] = []
    public internal(set) var calls: [CallRecord] = []
    /// The managed push SDK, when the app hosts it (`+Kits`); what it sent its ingest and why, in order.
    var kits: KitsSDK?
    public internal(set) var kitsRecords: [KitsRecord] = []
    public internal(set) var kitsDecisions: [KitsDecision] = []
    /// Records the ingest has not taken yet (kept and retried), and the next retry.
    public internal(set) var kitsOutbox: [KitsRecord] = []
    var kitsNextRetryAt: Millis = 0
    /// What became of the latest token the SDK registered: queued, synced or refused.
    var kitsTokenState = "none"
    /// Deliveries the service extension already reported received (willPresent does not report them again).
    var kitsExtensionReceipts: [String] = []
    /// Deliveries the SDK's foreground listener handed to the app's own banner, newest last.
    public internal(set) var kitsBanners: [String] = []
    var kitsBannerTracked: [String: Bool] = [:]
    /// What the delegate did with each OS callback (`+Delegate`).
    public internal(set) var forwards: [ForwardRecord] = []
    /// Callbacks the delegate's script forwards later, in due order.
    var delayedForwards: [DelayedForward] = []
    var authorization: AuthorizationMachine
    /// A RequestAuthorization asked for ProvidesAppNotificationSettings: the OS shows a button to the app's own
    /// notification settings.
    public internal(set) var providesAppNotificationSettings = false
    var attachment = DelegateAttachment()
    var plugin: PushPlugin
    var centre = NotificationCentre()
    /// A registration waiting for the device to come online.
    var registrationPending = false
    /// RequestAuthorization calls waiting for the user to answer the prompt (`promptAnswer: wait`).
    var promptPending: (callIds: [Int], options: [AuthorizationOption])?
    /// When recent background pushes were delivered (the budget's rolling hour).
    var backgroundDeliveries = RecentWakes()
    /// The newest background push held back by the budget (the device keeps only the newest).
    var heldBackgroundPush: QueuedPush?
    /// The notification the user expanded last, and what its content extension did.
    public internal(set) var contentSession: ContentExtensionSession?
    /// Service extension runs in progress, in start order.
    var extensionRuns: [ExtensionRun] = []
    /// Whether the farm's tick visits this install (`DeviceStore.ticking`), as `DeviceFarm.withApp` last left it.
    var ticking = false
    /// Something only time moves on: a background push held by the budget, a service extension still running, a
    /// delayed callback.
    var hasTimedWork: Bool {
        heldBackgroundPush != nil || !extensionRuns.isEmpty || !delayedForwards.isEmpty || !kitsOutbox.isEmpty
    }
    /// URLs in the extension's container cache, and how often it helped.
    var attachmentCache: Set<String> = []
    public internal(set) var attachmentCacheHits = 0
    public internal(set) var attachmentCacheMisses = 0
    var nextSeq = 1
    var nextCallId = 1
    var nextLocalId = 1

    /// A push held by the service extension until it delivers.
    struct ExtensionRun: Sendable {
        var apnsId: String
        var token: String
        var identifier: String
        var machine: ServiceExtensionMachine
    }

    init(configuration: AppConfiguration, platform: Platform) {
        self.configuration = configuration
        self.plugin = PushPlugin(platform: platform)
        self.authorization = AuthorizationMachine(ephemeral: configuration.build == .appClip)
        self.kits = configuration.pushSDKs.kits.map(KitsSDK.init)
    }

    /// Most events and calls kept per app; older ones are dropped first (a long soak must not grow the
    /// farm without bound).
    static let logCapacity = 10_000

    public var bundleId: String { configuration.bundleId }
    public var lifecycle: AppLifecycle { process.lifecycle }
    /// The user swiped the app away; cleared by the next launch.
    public var forceQuit: Bool { process.forceQuit }
    public var authorizationStatus: AuthorizationStatus { authorization.status }
    public var delegateAttachment: String { attachment.state.rawValue }
    public var notifications: [DeliveredNotification] { centre.items }
    public var groups: [NotificationGroup] { centre.groups }
    public var pendingTokenCall: Int? { plugin.pendingTokenCall }

    // MARK: Recording what happens to pushes

    /// Records a step of a push's fate on this app (device and time from `ctx`), as it happens.
    func recordFate(_ kind: PushFate.Kind, _ code: FateCode, _ reason: String, apnsId: String, token: String,
                    notificationId: String? = nil, _ ctx: OSContext) {
        ctx.fates.record(kind, code, reason, at: ctx.now, apnsId: apnsId, deviceId: ctx.deviceId, bundleId: bundleId,
                         token: token, notificationId: notificationId)
    }

    /// The same for `push`.
    func recordFate(_ kind: PushFate.Kind, _ code: FateCode, _ reason: String, of push: QueuedPush, _ ctx: OSContext) {
        recordFate(kind, code, reason, apnsId: push.apnsId, token: push.token, ctx)
    }

    // MARK: Journaling the plugin's actions

    /// Carries out the plugin's actions in order; OS work they ask for (registration, the prompt) may
    /// produce more actions, handled depth-first so the journal keeps causal order.
    mutating func perform(_ actions: [PluginAction], _ ctx: OSContext) {
        for action in actions {
            switch action {
            case .complete(let callId, let result):
                complete(callId, .completed(result), ctx)
            case .fire(let event):
                events.append(RecordedEvent(seq: takeSeq(), at: ctx.now, event: event))
                Self.trim(&events)
            case .startRegistration:
                register(ctx)
            case .requestAuthorization(let callId, let options):
                authorize(callId: callId, options: options, ctx)
            }
        }
    }

    mutating func takeSeq() -> Int {
        defer { nextSeq += 1 }
        return nextSeq
    }

    mutating func complete(_ callId: Int, _ state: CallRecord.State, _ ctx: OSContext) {
        guard let i = callIndex(callId), calls[i].state == .pending else { return }
        calls[i].state = state
        calls[i].completedAt = ctx.now
        calls[i].seq = takeSeq()
    }

    /// Calls are appended with increasing ids, so a binary search finds one (trimming keeps the order).
    func callIndex(_ callId: Int) -> Int? {
        var low = 0, high = calls.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if calls[mid].callId == callId { return mid }
            if calls[mid].callId < callId { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    /// Drops the oldest tenth once a log passes its capacity (amortised: not a shift per append).
    static func trim<T>(_ log: inout [T]) {
        if log.count > logCapacity + logCapacity / 10 { log.removeFirst(log.count - logCapacity) }
    }

    // MARK: OS work

    /// `registerForRemoteNotifications`: the token of this install (issued on first use), or the
    /// configured failure. Offline devices register once they are back online.
    /// - Parameter bySDK: the managed SDK's own registration at launch: its answer reaches the SDK only (the APNs
    ///   add-on hears of tokens through its own GetToken).
    mutating func register(_ ctx: OSContext, bySDK: Bool = false) {
        guard ctx.online else {
            registrationPending = true
            return
        }
        registrationPending = false
        if let error = configuration.registrationError {
            if !bySDK { deliverCallback(.didFailToRegister(description: error), ctx) }
            return
        }
        // A token the registry no longer knows (deleted through the control API, replaced by a state import)
        // is not what the OS would hand out: the next registration gets a fresh one.
        if let current = token, !ctx.registrar.isRegistered(current, bundleId: bundleId) {
            previousTokens.append(current)
            token = nil
        }
        if token == nil {
            do {
                token = try ctx.registrar.issueToken(
                    bundleId: bundleId, environment: configuration.build.tokenEnvironment, now: ctx.now)
            } catch {
                deliverCallback(.didFailToRegister(description: "registration failed: \(error)"), ctx)
                return
            }
        }
        if bySDK {
            kitsHandle(.didRegister(token: token!), ctx)
        } else {
            deliverCallback(.didRegister(token: token!), ctx)
        }
    }

    /// The OS side of RequestAuthorization: answer at once, or show the prompt once.
    mutating func authorize(callId: Int, options requested: [AuthorizationOption], _ ctx: OSContext) {
        if requested.contains(.providesAppNotificationSettings) { providesAppNotificationSettings = true }
        // The OS ignores Unspecified (0), and grants CriticalAlert only to an app with its entitlement.
        let options = requested.filter {
            $0 != .unspecified && ($0 != .criticalAlert || configuration.entitlements.criticalAlerts)
        }
        // macOS reports an error once notifications are switched off in System Settings; the plugin turns
        // it into Success(Granted=false). iOS simply answers "not granted".
        if plugin.platform == .macOS && authorization.switchedOffInSettings {
            perform(plugin.authorizationFailed(
                callId: callId, osError: "UNErrorDomain error 1: Notifications are not allowed for this application"), ctx)
            return
        }
        switch authorization.request(options) {
        case .answer(let granted):
            perform(plugin.authorizationAnswered(callId: callId, granted: granted), ctx)
        case .prompt:
            if var pending = promptPending {
                pending.callIds.append(callId)
                promptPending = pending
                return
            }
            attachment.permissionPromptShown(replacement: configuration.delegate.thirdParty)
            switch configuration.promptAnswer {
            case .allow: answerPrompt(callIds: [callId], options: options, granted: true, ctx)
            case .deny: answerPrompt(callIds: [callId], options: options, granted: false, ctx)
            case .wait: promptPending = ([callId], options)
            }
        }
    }

    mutating func answerPrompt(callIds: [Int], options: [AuthorizationOption], granted: Bool, _ ctx: OSContext) {
        authorization.answer(granted: granted, options: options)
        promptPending = nil
        for id in callIds { perform(plugin.authorizationAnswered(callId: id, granted: granted), ctx) }
    }

    /// Carries out what the process machine asks: a new process starts the plugin over and sets the app's
    /// delegate again (so a third-party replacement lasts one process); an ended one takes its pending calls,
    /// its prompt and its waiting registration with it.
    mutating func apply(_ actions: [AppProcess.Action], _ ctx: OSContext) {
        for action in actions {
            switch action {
            case .started:
                plugin.relaunched()
                attachment.processStarted()
                // The managed SDK registers on every launch, and hands over that launch's token.
                if kits != nil {
                    register(ctx, bySDK: true)
                    retryKitsOutbox(ctx, now: true)
                }
            case .ended:
                abandonDelayedForwards(ctx)
                // The app's own banners die with its process.
                kitsBanners.removeAll()
                kitsBannerTracked.removeAll()
                for i in calls.indices where calls[i].state == .pending {
                    calls[i].state = .abandoned
                    calls[i].completedAt = ctx.now
                    calls[i].seq = takeSeq()
                }
                promptPending = nil
                registrationPending = false
                plugin.relaunched()
            }
        }
    }

    /// A plugin call needs the app's code running: an app that is not is launched (the user opened it).
    mutating func ensureRunning(_ ctx: OSContext) {
        if !process.isRunning { apply(process.bringToForeground(), ctx) }
    }

    /// The device came online: a registration that waited goes through.
    mutating func deviceOnline(_ ctx: OSContext) {
        if registrationPending { register(ctx) }
    }

    /// The install is gone (uninstall, restore): its token stops being valid now, and a background push
    /// the device was holding for it is dropped. Throws when the store refuses, changing nothing.
    mutating func invalidateToken(_ ctx: OSContext) throws(DeviceError) {
        if let old = token {
            do {
                try ctx.registrar.unregister(token: old, at: ctx.now)
            } catch {
                throw .storeFailed("could not unregister the app's token: \(error)")
            }
            previousTokens.append(old)
            token = nil
        }
        if let held = heldBackgroundPush {
            heldBackgroundPush = nil
            recordFate(.dropped, .installEnded, "the app's install ended (uninstall or restore)", of: held, ctx)
        }
    }
}
