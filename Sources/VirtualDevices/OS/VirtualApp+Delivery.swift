import APNsEmulator
import APNsProtocol

/// What a push does to the app once it reaches the device.
extension VirtualApp {
    /// Runs the OS model for one delivered push (`content`: its parsed payload), recording its fate steps in
    /// `ctx.fates`.
    mutating func receive(_ push: QueuedPush, content: PushContent, _ ctx: OSContext) {
        guard push.pushType == .alert || push.pushType == .background else {
            recordFate(.delivered, .systemHandled, "a \(push.pushType.rawValue) push is handled by the system or an app extension, not"
                       + " the notification centre", of: push, ctx)
            return
        }
        if content.contentAvailable || push.pushType == .background {
            wake(for: push, ctx)
        }
        if push.pushType == .alert {
            present(Self.remoteNotification(push, content, platform: plugin.platform, entitlements: configuration.entitlements),
                    content: content, apnsId: push.apnsId, token: push.token, ctx)
        }
    }

    /// The record the delegate would see for a remote push.
    static func remoteNotification(_ push: QueuedPush, _ content: PushContent, platform: Platform,
                                   entitlements: Entitlements) -> ApnsNotification {
        ApnsNotification(identifier: push.collapseId ?? push.apnsId, content: content, platform: platform,
                         level: effectiveLevel(content.interruptionLevel, entitlements), source: .delegate)
    }

    /// TimeSensitive without its entitlement is delivered as Passive; Critical without the critical-alerts
    /// entitlement as Active; no level means Active.
    static func effectiveLevel(_ requested: InterruptionLevel?, _ entitlements: Entitlements) -> InterruptionLevel {
        switch requested {
        case .timeSensitive?: return entitlements.timeSensitive ? .timeSensitive : .passive
        case .critical?: return entitlements.criticalAlerts ? .critical : .active
        case .passive?: return .passive
        default: return .active
        }
    }

    // MARK: Alerts

    /// Shows (or not) a notification: foreground → the delegate's willPresent decides; otherwise the
    /// notification centre, if alerts are authorized. Badge and sound follow the same permissions.
    mutating func present(_ n: consuming ApnsNotification, content: PushContent, apnsId: String?, token: String,
                          _ ctx: OSContext, extensionResult: ExtensionResult? = nil) {
        // A local notification (no apns-id) has no fate to record.
        func fate(_ kind: PushFate.Kind, _ code: FateCode, _ reason: String, _ id: String? = nil) {
            guard let apnsId else { return }
            recordFate(kind, code, reason, apnsId: apnsId, token: token, notificationId: id, ctx)
        }
        guard authorization.isAllowed else {
            fate(.suppressed, .notAuthorized, "notifications are not authorized (\(authorization.status)): nothing shown, no sound,"
                 + " no badge")
            return
        }
        let provisional = authorization.status == .provisional
        let alertAllowed = authorization.allows(.alert) || provisional
        let soundAllowed = authorization.allows(.sound) && !provisional
        let badgeAllowed = authorization.allows(.badge)

        // Without alert text nothing is presented and willPresent is not called: the OS applies the badge
        // (and plays the sound) itself.
        guard content.hasAlert else {
            if let newBadge = content.badge, badgeAllowed { badge = newBadge }
            let reason = content.badge != nil || !content.sound.isEmpty
                ? "no alert text: badge and sound only" : "no alert text: nothing to show"
            // A provider's request format sent to APNs as is: say how the provider would have mapped it (parsed
            // again only here, for pushes with nothing to show).
            let hints = ProviderShape.hints(inPayload: Array(content.userInfoJson.utf8))
            fate(.delivered, .noAlertText, hints.isEmpty ? reason : reason + " (" + hints.joined(separator: "; ") + ")")
            return
        }
        // The service extension runs before display: alert pushes with mutable-content and text, when
        // alerts are allowed. The push is shown when it delivers.
        // Cheap tests first: binding `configuration.serviceExtension` copies the script out.
        if content.mutableContent, extensionResult == nil, alertAllowed, n.isRemote,
           let script = configuration.serviceExtension, let apnsId {
            // The SDK's receipt reporting runs in the extension, within its own bounded time.
            if kits?.configuration.receipts != nil { kitsHandle(.extensionReceived(userInfoJson: content.userInfoJson), ctx) }
            startExtension(script, n: n, content: content, apnsId: apnsId, token: token, ctx)
            fate(.deferred, .extensionRunning, "the service extension is running (30 s budget)")
            advanceExtensions(ctx)
            return
        }
        var options: PresentationSet
        if lifecycle == .foreground {
            // The host asks the managed SDK first (handleWillPresent); only what it does not claim reaches its own
            // handler.
            if kits != nil, let display = kitsHandle(.willPresent(userInfoJson: n.userInfoJson), ctx) {
                options = display ? .all : PresentationSet(bits: 0)
            } else {
                deliverCallback(.willPresent(n), ctx)
                // A third-party delegate answers willPresent itself, with everything on.
                options = attachment.state == .attached
                    ? PresentationSet(configuration.delegate.presentationOptions(for: content))
                    : .all
            }
        } else {
            options = provisional ? PresentationSet([.list, .badge]) : .all
        }
        if let newBadge = content.badge, badgeAllowed, options.contains(.badge) { badge = newBadge }
        let allowance = InterruptionRules.allowance(
            n.interruptionLevel, focus: ctx.focus, muted: ctx.muted,
            criticalAuthorized: authorization.allows(.criticalAlert), foreground: lifecycle == .foreground)
        let wantedBanner = alertAllowed && options.contains(.banner)
        let wantedSound = soundAllowed && options.contains(.sound) && !content.sound.isEmpty
        let banner = wantedBanner && allowance.banner, list = alertAllowed && options.contains(.list)
        let sound = wantedSound && allowance.sound
        // What the level, Focus or the silent switch took away, if anything (a plain delivery builds no string).
        let levelNote = (wantedBanner && !banner) || (wantedSound && !sound) ? allowance.note : nil
        guard banner || list else {
            fate(.suppressed, lifecycle == .foreground ? .willPresentSuppressed : .alertsNotAuthorized,
                 lifecycle == .foreground
                 ? "the app was in the foreground and willPresent returned no banner or list option"
                 : "alerts are not among the authorized options")
            return
        }
        let identifier = n.identifier
        let item = StoredNotification(
            apnsId: apnsId, notification: consume n,
            deliveredAt: ctx.now,
            soundPlayed: sound ? content.sound : "",
            banner: banner, list: list,
            contentExtension: configuration.contentExtensionCategories.contains(content.category),
            extensionResult: extensionResult)
        // Reasons are literals unless an extension ran: a plain delivery builds no string.
        func withLog(_ reason: String) -> String {
            var reason = reason
            if let levelNote { reason += " (" + levelNote + ")" }
            guard let log = extensionResult?.log else { return reason }
            return reason + "; " + log.joined(separator: "; ")
        }
        guard options.contains(.list) || lifecycle != .foreground else {
            fate(.shown, .bannerOnly, withLog("shown as a banner only (willPresent did not ask for the list)"), identifier)
            return
        }
        if let replaced = centre.add(consume item), let replacedId = replaced.apnsId ?? apnsId {
            recordFate(.coalesced, .replacedOnScreen, "replaced on screen by \(apnsId ?? identifier) (same identifier / apns-collapse-id)",
                       apnsId: replacedId, token: token, notificationId: replaced.identifier, ctx)
        }
        let shown: String
        if lifecycle != .foreground {
            shown = "shown in the notification centre"
        } else if banner && list {
            shown = "presented in the foreground (banner, list)"
        } else {
            shown = "presented in the foreground (list)"
        }
        fate(.shown, lifecycle != .foreground ? .shownInCentre : .presentedInForeground, withLog(shown), identifier)
    }

    /// Presentation options as bits: the set `willPresent` answered, tested on every push without a `Set`.
    struct PresentationSet {
        var bits: UInt8
        /// Every option (banner, list, sound, badge: raw values 1–4) as a literal: a `static let` built from the
        /// array was a `swift_once` check per push.
        static var all: PresentationSet { PresentationSet(bits: 0b1_1110) }
        init(_ options: [PresentationOption]) { bits = options.reduce(0) { $0 | (1 << UInt8($1.rawValue)) } }
        init(bits: UInt8) { self.bits = bits }
        @inline(__always) func contains(_ o: PresentationOption) -> Bool { bits & (1 << UInt8(o.rawValue)) != 0 }
    }

    // MARK: Service extension

    /// What a finished service extension hands to display.
    struct ExtensionResult: Sendable {
        var outcome: String
        var attachments: [AttachmentRecord]
        var log: [String]
        var events: [ExtensionEvent] = []
        var failures: [AttachmentFailure] = []
    }

    private mutating func startExtension(_ script: ServiceExtensionScript, n: ApnsNotification, content: PushContent,
                                         apnsId: String, token: String, _ ctx: OSContext) {
        var cache = attachmentCache
        var hits = 0, misses = 0
        let machine = ServiceExtensionMachine(
            script: script, original: content, now: ctx.now, fetch: ctx.fetchAttachment,
            cached: { url in
                if cache.contains(url) { hits += 1; return true }
                misses += 1
                cache.insert(url)
                return false
            })
        attachmentCache = cache
        attachmentCacheHits += hits
        attachmentCacheMisses += misses
        extensionRuns.append(ExtensionRun(apnsId: apnsId, token: token, identifier: n.identifier, machine: machine))
    }

    /// Time passed: extensions whose moment came deliver their content (or the original), which is then
    /// presented as any notification is.
    mutating func advanceExtensions(_ ctx: OSContext) {
        var i = 0
        while i < extensionRuns.count {
            let actions = extensionRuns[i].machine.advance(to: ctx.now)
            let run = extensionRuns[i]
            if run.machine.isFinished { extensionRuns.remove(at: i) } else { i += 1 }
            for case .deliver(let content, let attachments, let outcome, let log, let events, let failures) in actions {
                let n = ApnsNotification(identifier: run.identifier, content: content, platform: plugin.platform,
                                         level: Self.effectiveLevel(content.interruptionLevel, configuration.entitlements),
                                         source: .delegate)
                present(n, content: content, apnsId: run.apnsId, token: run.token, ctx,
                        extensionResult: ExtensionResult(outcome: "\(outcome)", attachments: attachments, log: log,
                                                         events: events, failures: failures))
            }
        }
    }

    // MARK: Background

    /// `content-available`: wakes the app unless it was force-quit; a suspended app gets only so many an
    /// hour, and the device keeps only the newest one held back.
    mutating func wake(for push: QueuedPush, _ ctx: OSContext) {
        if process.forceQuit {
            recordFate(.dropped, .forceQuit, "the user force-quit the app: background pushes are not delivered until it is launched"
                       + " again", of: push, ctx)
            return
        }
        if lifecycle == .foreground {
            recordFate(.delivered, .foregroundDelivered, "app in the foreground: didReceiveRemoteNotification", of: push, ctx)
            return
        }
        let budget = ctx.backgroundBudgetPerHour
        if budget > 0 && backgroundDeliveries.count(at: ctx.now) >= budget {
            if let older = heldBackgroundPush {
                recordFate(.coalesced, .budgetReplaced, "a newer background push (\(push.apnsId)) replaced it while the budget was used up",
                           of: older, ctx)
            }
            heldBackgroundPush = push
            recordFate(.deferred, .budgetHeld, "background budget (\(budget) per hour) used up: held, newest only", of: push, ctx)
            return
        }
        wakeNow(push, ctx)
    }

    private mutating func wakeNow(_ push: QueuedPush, _ ctx: OSContext) {
        let launched = !process.isRunning
        if let actions = process.launchInBackground() { apply(actions, ctx) }
        backgroundDeliveries.record(ctx.now)
        recordFate(.delivered, launched ? .launchedInBackground : .wokeApp,
                   launched ? "launched the app in the background" : "woke the app", of: push, ctx)
    }

    /// Time passed or the app came forward: a held background push goes out if the budget allows.
    mutating func releaseHeldBackgroundPush(_ ctx: OSContext) {
        guard let held = heldBackgroundPush, !process.forceQuit else { return }
        let budget = ctx.backgroundBudgetPerHour
        guard lifecycle == .foreground || budget == 0 || backgroundDeliveries.count(at: ctx.now) < budget else { return }
        heldBackgroundPush = nil
        wakeNow(held, ctx)
    }
}
