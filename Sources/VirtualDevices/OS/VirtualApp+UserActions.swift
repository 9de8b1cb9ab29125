import APNsEmulator

/// What the user does to the app and its notifications.
extension VirtualApp {
    /// Opens the app (home screen, app switcher): a new process if it was not running.
    mutating func bringToForeground(_ ctx: OSContext) {
        apply(process.bringToForeground(), ctx)
        kitsForegroundEntered(ctx)
        releaseHeldBackgroundPush(ctx)
    }

    mutating func moveToBackground(_ ctx: OSContext) {
        process.moveToBackground()
        kitsForegroundLeft(ctx)
    }

    /// Swiped away in the app switcher: background pushes are dropped until the next launch, and so is a
    /// background push the device was holding for it.
    mutating func forceQuitApp(_ ctx: OSContext) {
        apply(process.forceQuitApp(), ctx)
        kitsForegroundLeft(ctx)
        guard let held = heldBackgroundPush else { return }
        heldBackgroundPush = nil
        recordFate(.dropped, .forceQuitWhileHeld, "the user force-quit the app while the push was held", of: held, ctx)
    }

    /// The system ended the process (memory pressure): unlike a force-quit, background pushes relaunch it.
    mutating func terminate(_ ctx: OSContext) {
        apply(process.terminate(), ctx)
        kitsForegroundLeft(ctx)
    }

    /// Tap on the notification: the default action, opening the app (a cold start if it was not running).
    /// The notification leaves the centre; the badge stays (a tap does not clear it).
    mutating func tap(_ identifier: String, _ ctx: OSContext) throws(DeviceError) {
        guard let item = centre.remove(identifier) else { throw .notificationNotFound(identifier) }
        closeSession(of: identifier, ctx)
        respond(to: item, action: ActionIdentifier.defaultAction, text: nil, foreground: true, ctx)
    }

    /// A button of the notification's category, with the typed text for a text-input action.
    mutating func performAction(_ identifier: String, action: String, text: String?, _ ctx: OSContext)
        throws(DeviceError)
    {
        guard let item = centre.find(identifier) else { throw .notificationNotFound(identifier) }
        let categoryId = item.notification.categoryIdentifier
        guard let category = configuration.categories.first(where: { $0.identifier == categoryId }),
              let button = category.actions.first(where: { $0.identifier == action }) else {
            throw .unknownAction(category: categoryId, action: action)
        }
        if text != nil && !button.textInput { throw .textInputNotAllowed(action) }
        // Expanded with the extension's own view: an extension that implements didReceive(response) gets the
        // action first, and its answer decides what else happens.
        if var session = contentSession, session.isOpen, session.notificationId == identifier,
           session.interface == .custom, let option = configuration.contentExtension.responseOption {
            session.events.append(.init(at: ctx.now, event: .didReceiveResponse, actionIdentifier: action))
            contentSession = session
            switch option {
            case .doNotDismiss: return
            case .dismiss:
                _ = centre.remove(identifier)
                closeSession(of: identifier, ctx)
                return
            case .dismissAndForwardAction: break
            }
        }
        _ = centre.remove(identifier)
        closeSession(of: identifier, ctx)
        respond(to: item, action: action, text: button.textInput ? (text ?? "") : nil,
                       foreground: button.foreground, ctx)
    }

    /// Swipes the notification away. Only a category registered with `customDismissAction` tells the app.
    mutating func dismiss(_ identifier: String, _ ctx: OSContext) throws(DeviceError) {
        guard let item = centre.remove(identifier) else { throw .notificationNotFound(identifier) }
        closeSession(of: identifier, ctx)
        let category = configuration.categories.first { $0.identifier == item.notification.categoryIdentifier }
        guard category?.customDismissAction == true else { return }
        // Dismiss responses are delivered to the running or background-launched app, never a cold start.
        respond(to: item, action: ActionIdentifier.dismissAction, text: nil, foreground: false, ctx)
    }

    /// Long-press on a notification: expanded, with the content extension's interface if it draws the category.
    mutating func expand(_ identifier: String, _ ctx: OSContext) throws(DeviceError) {
        guard let item = centre.find(identifier) else { throw .notificationNotFound(identifier) }
        if var open = contentSession { open.close(at: ctx.now); contentSession = open }
        contentSession = .expand(identifier, drawnByExtension: item.contentExtension,
                                 settings: configuration.contentExtension, at: ctx.now)
    }

    /// The expanded notification closes (the user lets go).
    mutating func collapse(_ ctx: OSContext) {
        if var open = contentSession { open.close(at: ctx.now); contentSession = open }
    }

    private mutating func closeSession(of identifier: String, _ ctx: OSContext) {
        guard var open = contentSession, open.notificationId == identifier else { return }
        open.close(at: ctx.now)
        contentSession = open
    }

    /// The response path: launch if needed (iOS forwards the launch notification from launchOptions),
    /// then didReceive through the delegates.
    private mutating func respond(to item: DeliveredNotification, action: String, text: String?, foreground: Bool,
                                  _ ctx: OSContext) {
        let wasRunning = process.isRunning
        if foreground {
            apply(process.bringToForeground(), ctx)
            kitsForegroundEntered(ctx)
        } else if let actions = process.launchInBackground() {
            apply(actions, ctx)
        }
        if !wasRunning && foreground && plugin.platform == .iOS && item.notification.isRemote {
            deliverCallback(.launchedWithRemoteNotification(
                identifier: item.identifier, userInfoJson: item.notification.userInfoJson), ctx)
        }
        // handleNotificationResponse first: a response the managed SDK claims does not reach the host's handler.
        if kits == nil || kitsHandle(.response(userInfoJson: item.notification.userInfoJson,
                                               category: item.notification.categoryIdentifier, actionIdentifier: action),
                                     ctx) == nil {
            deliverCallback(.didReceive(item.notification, actionIdentifier: action, userText: text,
                                        launchedApp: !wasRunning && foreground), ctx)
        }
        if foreground { releaseHeldBackgroundPush(ctx) }
    }

    /// Settings → Notifications → Allow Notifications.
    mutating func setNotificationsEnabled(_ enabled: Bool) {
        authorization.setEnabledInSettings(enabled)
    }

    /// The user answers a prompt left up (`promptAnswer: wait`).
    mutating func answerPrompt(allow: Bool, _ ctx: OSContext) throws(DeviceError) {
        guard let pending = promptPending else { throw .noPromptShowing }
        answerPrompt(callIds: pending.callIds, options: pending.options, granted: allow, ctx)
    }

    /// The app sets its notification-centre delegate again (after a third-party package replaced it).
    mutating func reattachDelegate() {
        attachment.reattach()
    }

    /// The app schedules a local notification that fires now (for the "forwards local notifications
    /// too" misconfiguration). Returns its identifier.
    mutating func postLocalNotification(title: String, body: String, category: String, threadId: String,
                                        _ ctx: OSContext) -> String {
        var content = PushContent()
        content.title = title
        content.body = body
        content.category = category
        content.threadId = threadId
        content.userInfoJson = "{}"
        let identifier = "local-\(nextLocalId)"
        nextLocalId += 1
        let n = ApnsNotification(identifier: identifier, content: content, platform: plugin.platform, level: .active,
                                 source: .delegate, isRemote: false)
        present(n, content: content, apnsId: nil, token: token ?? "", ctx)
        return identifier
    }
}
