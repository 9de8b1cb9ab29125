/// The table from OS callback to plugin method: whether a
/// callback reaches the plugin, given how the app's delegates are configured and attached.
///
/// | OS callback | reaches the plugin when |
/// |---|---|
/// | didRegisterForRemoteNotifications / didFailToRegister | the app forwards at all (app delegate; third-party packages do not touch it) |
/// | launch with `launchOptions[.remoteNotification]` (iOS) | the app forwards at all |
/// | willPresent / didReceive | the app forwards, its notification-centre delegate is attached, and the notification is remote (or the app forwards local ones too) |
/// | didReceive for the tap that launched the app | as above, and the delegate was set during launch (not late) |
enum OSCallback: Sendable, Equatable {
    case didRegister(token: String)
    case didFailToRegister(description: String)
    case launchedWithRemoteNotification(identifier: String, userInfoJson: String)
    case willPresent(ApnsNotification)
    case didReceive(ApnsNotification, actionIdentifier: String, userText: String?, launchedApp: Bool)
}

enum DelegateForwarding {
    /// Why a callback does not reach the plugin: a code and the same in words.
    struct NotForwarded: Equatable {
        var code: ForwardRecord.Code
        var reason: String
    }

    /// Why `callback` does not reach the plugin; nil when it does.
    static func whyNot(_ callback: OSCallback, configuration: DelegateConfiguration,
                       attachment: DelegateAttachment.State) -> NotForwarded? {
        guard configuration.forwarding != .none else {
            return NotForwarded(code: .delegateForwardsNothing, reason: "the app's delegate forwards nothing")
        }
        switch callback {
        case .didRegister, .didFailToRegister, .launchedWithRemoteNotification:
            return nil
        case .willPresent(let n):
            return notificationCentreProblem(n, configuration, attachment)
        case .didReceive(let n, _, _, let launchedApp):
            if launchedApp && configuration.setLate {
                return NotForwarded(code: .delegateSetLate, reason: "the notification-centre delegate was set after"
                                    + " launch: the launching response is missed")
            }
            return notificationCentreProblem(n, configuration, attachment)
        }
    }

    private static func notificationCentreProblem(_ n: ApnsNotification, _ configuration: DelegateConfiguration,
                                                  _ attachment: DelegateAttachment.State) -> NotForwarded? {
        if attachment != .attached {
            return NotForwarded(code: .thirdPartyDelegate,
                                reason: "a third-party package replaced the notification-centre delegate")
        }
        if !n.isRemote && configuration.forwarding != .includingLocal {
            return NotForwarded(code: .localNotification, reason: "a local notification: the delegate forwards only"
                                + " remote ones")
        }
        return nil
    }
}
