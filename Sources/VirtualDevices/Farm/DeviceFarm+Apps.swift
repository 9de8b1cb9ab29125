import APNsEmulator

/// Plugin calls and user actions on an installed app.
extension DeviceFarm {
    /// Makes a plugin call in the app; returns its record (pending while it waits).
    /// - Parameter alreadyCancelled: the caller's cancellation token was cancelled before the call.
    public func call(_ call: PluginCall, alreadyCancelled: Bool = false, bundleId: String,
                     deviceId: String) throws(DeviceError) -> CallRecord? {
        let now = services.clock.now()
        return try shard(ofDevice: deviceId).state.withLock { s throws(DeviceError) in
            try withApp(&s, deviceId, bundleId, now: now) { app, ctx in
                app.call(call, alreadyCancelled: alreadyCancelled, ctx)
            }
        }
    }

    /// A user action on an app or one of its notifications.
    public func perform(_ action: UserAction, bundleId: String, deviceId: String) throws(DeviceError) {
        let now = services.clock.now()
        try shard(ofDevice: deviceId).state.withLock { s throws(DeviceError) in
            try withApp(&s, deviceId, bundleId, now: now) { app, ctx throws(DeviceError) in
                switch action {
                case .launch, .foreground: app.bringToForeground(ctx)
                case .background: app.moveToBackground(ctx)
                case .forceQuit: app.forceQuitApp(ctx)
                case .terminate: app.terminate(ctx)
                case .tap(let id): try app.tap(id, ctx)
                case .action(let id, let actionId, let text): try app.performAction(id, action: actionId, text: text, ctx)
                case .dismiss(let id): try app.dismiss(id, ctx)
                case .setNotificationsEnabled(let on): app.setNotificationsEnabled(on)
                case .setCollectionEnabled(let on): try app.setKitsCollectionEnabled(on, ctx)
                case .recordBannerClick(let id): try app.kitsBannerClicked(id, ctx)
                case .answerPrompt(let allow): try app.answerPrompt(allow: allow, ctx)
                case .reattachDelegate: app.reattachDelegate()
                case .expand(let id): try app.expand(id, ctx)
                case .collapse: app.collapse(ctx)
                case .setNotificationCategories(let categories):
                    app.ensureRunning(ctx)
                    app.configuration.categories = categories
                case .postLocalNotification(let title, let body, let category, let thread):
                    _ = app.postLocalNotification(title: title, body: body, category: category, threadId: thread, ctx)
                }
            }
        }
    }
}

/// What a user does to an app: install, launch, background, kill, uninstall, restore.
public enum UserAction: Sendable, Equatable {
    /// Open from the home screen (a normal launch: no cold-start notification).
    case launch
    /// Bring the app back from the app switcher (the same as `launch` for a running app).
    case foreground
    /// Home button: a foreground app is suspended.
    case background
    /// Swipe the app away: background pushes are dropped until the next launch.
    case forceQuit
    /// The system ends the process (not the user): background pushes still relaunch it.
    case terminate
    /// Tap a notification (default action; a cold start when the app was not running).
    case tap(notificationId: String)
    /// Press a category action button, with the typed text for a text-input action.
    case action(notificationId: String, actionId: String, text: String?)
    /// Swipe a notification away (reported only for categories with customDismissAction).
    case dismiss(notificationId: String)
    /// Settings → Notifications → Allow Notifications.
    case setNotificationsEnabled(Bool)
    /// The app's code calls the managed SDK's `setCollectionEnabled` (consent given or withdrawn).
    case setCollectionEnabled(Bool)
    /// The user really clicks the app's own banner for a delivery of the managed SDK (`event.recordClick()`).
    case recordBannerClick(deliveryId: String?)
    /// Answer a permission prompt left up (`promptAnswer: wait`).
    case answerPrompt(allow: Bool)
    /// The app's code calls `setNotificationCategories`: the set it passes replaces the registered one (as iOS
    /// does). Actions are looked up when the user acts, so notifications already shown get the new set too.
    case setNotificationCategories([NotificationCategory])
    /// Long-press a notification (expanded; the content extension's view if it draws the category), and let go.
    case expand(notificationId: String)
    case collapse
    /// The app sets its notification-centre delegate again.
    case reattachDelegate
    /// The app shows a local notification now.
    case postLocalNotification(title: String, body: String, category: String, threadId: String)
}
