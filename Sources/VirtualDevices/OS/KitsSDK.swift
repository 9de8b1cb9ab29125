import APNsProtocol
import EmulatorControl

/// The managed push SDK inside an app. For each OS callback the host hands it, it decides whether the notification
/// is its own and which record it sends; the app carries out the returned actions.
///
/// Its rules: a notification is the SDK's only when the payload carries the server's `kits_delivery_id` with the
/// exact version marker (`kits_v: 1`); a record is sent only when the message asked for events
/// (`kits_track_events: true`), collection is on and `notificationEventsEnabled` is not false; willPresent means
/// RECEIVED, a real response other than a dismissal CLICKED, and a click never makes a RECEIVED. Sessions start
/// only on a real foreground entry.
struct KitsSDK: Sendable, Equatable {
    let configuration: KitsConfiguration
    /// Collection now: the initialization option until the app calls `setCollectionEnabled`, whose choice is
    /// stored (it outlives the process, and a stored refusal wins over the option at the next launch).
    private(set) var collectionEnabled: Bool
    private(set) var sessionCount = 0
    private(set) var firstSessionAt: Millis?
    private(set) var lastSessionAt: Millis?
    /// Foreground time of the sessions that ended, and when the current one began.
    private(set) var foregroundMillis: Millis = 0
    private var foregroundSince: Millis?
    var inSession: Bool { foregroundSince != nil }
    /// The first token the host saved (what a host that caches tokens keeps handing over).
    private(set) var cachedToken: String?

    init(_ configuration: KitsConfiguration) {
        self.configuration = configuration
        collectionEnabled = configuration.collectionEnabled
    }

    enum Input: Equatable {
        case didRegister(token: String)
        case willPresent(userInfoJson: String)
        case response(userInfoJson: String, category: String, actionIdentifier: String)
        case setCollectionEnabled(Bool)
        /// The user brought the app to the foreground (not a launch in the background, not initialization).
        case foregroundEntered(at: Millis)
        case foregroundLeft(at: Millis)
        /// The service extension set up for receipt reporting got the notification.
        case extensionReceived(userInfoJson: String)
        /// The host's in-app banner for this delivery was really clicked (`event.recordClick()`).
        case bannerClicked(deliveryId: String, tracked: Bool)
    }

    enum Action: Equatable {
        case record(KitsRecord)
        case decide(callback: String, KitsDecision.Outcome, reason: String)
        /// The SDK's notification: the host's own handler does not get it. For willPresent, whether the OS shows it.
        case claim(display: Bool)
        /// The foreground listener saw this delivery and prevented the OS presentation (the app's banner shows it).
        case banner(deliveryId: String, tracked: Bool)
    }

    /// The server's marks in a payload.
    struct Marker: Equatable {
        var deliveryId: String
        var tracked: Bool
        /// The per-delivery report token the server adds when it tracks background receipts.
        var receiptToken: Bool
    }

    static let deliveryIdKey = "kits_delivery_id"
    static let versionKey = "kits_v"
    static let version: Int64 = 1
    static let trackEventsKey = "kits_track_events"
    static let receiptTokenKey = "kits_receipt_token"

    static func marker(in userInfoJson: String) -> Marker? {
        guard userInfoJson.utf8.count <= 1 << 20, userInfoJson.contains(deliveryIdKey),
              case .success(let document) = JSONDocument.parse(Array(userInfoJson.utf8)),
              let id = document.value[deliveryIdKey]?.string, !id.isEmpty,
              document.value[versionKey]?.integer == version
        else { return nil }
        let receipt = document.value[receiptTokenKey]?.string.map { !$0.isEmpty } ?? false
        return Marker(deliveryId: id, tracked: document.value[trackEventsKey]?.bool == true, receiptToken: receipt)
    }

    var eventsEnabled: Bool { configuration.notificationEventsEnabled ?? true }

    mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .setCollectionEnabled(let on):
            collectionEnabled = on
            return []
        case .didRegister(let token):
            guard configuration.appDelegateBridge else {
                return [.decide(callback: "didRegisterForRemoteNotifications", .notWired,
                                reason: "the AppDelegate bridge is not wired: the SDK never gets the token")]
            }
            if cachedToken == nil { cachedToken = token }
            var record = draft(.token, .registerAPNsToken)
            record.token = configuration.handsOverCachedToken ? cachedToken : token
            record.environment = configuration.apnsEnvironment
            if record.token != token {
                return [.record(record), .decide(callback: "didRegisterForRemoteNotifications", .staleToken,
                                                 reason: "the host handed over the token it saved, not this launch's")]
            }
            return [.record(record), .decide(callback: "didRegisterForRemoteNotifications", .recorded,
                                             reason: "this launch's token, registered for \(configuration.apnsEnvironment.rawValue)")]
        case .willPresent(let json):
            let callback = "willPresent"
            guard let marker = Self.marker(in: json) else { return [notOurs(callback)] }
            var actions: [Action]
            if configuration.preventDefault {
                actions = [.claim(display: false), .banner(deliveryId: marker.deliveryId, tracked: marker.tracked),
                           .decide(callback: callback, .preventedDefault,
                                   reason: "the foreground listener called preventDefault: the app draws its own banner")]
            } else {
                actions = [.claim(display: configuration.shouldDisplay)]
            }
            var record = draft(.received, .willPresent)
            record.deliveryId = marker.deliveryId
            return actions + gated(callback, marker.tracked, record)
        case .response(let json, let category, let action):
            let callback = "didReceiveResponse"
            guard let marker = Self.marker(in: json) else { return [notOurs(callback)] }
            guard configuration.sceneClickForwarding else {
                return [.decide(callback: callback, .notWired,
                                reason: "the Scene app does not forward clicks to the SDK: the host's handler got it")]
            }
            guard action != ActionIdentifier.dismissAction else {
                return [.claim(display: false), .decide(callback: callback, .dismissal, reason: "a dismissal is not a click")]
            }
            var record = draft(.clicked, .response)
            record.deliveryId = marker.deliveryId
            record.actionIdentifier = action
            record.sdkAction = sdkAction(category: category, action: action)
            return [.claim(display: false)] + gated(callback, marker.tracked, record)
        case .foregroundEntered(let at):
            sessionCount += 1
            var record = draft(.session, .foreground)
            record.sessionCount = sessionCount
            record.firstSessionAt = firstSessionAt ?? at
            record.previousSessionAt = lastSessionAt
            record.foregroundMillis = foregroundMillis
            record.appVersion = configuration.appVersion
            record.language = configuration.language
            if firstSessionAt == nil { firstSessionAt = at }
            lastSessionAt = at
            foregroundSince = at
            guard collectionEnabled else {
                return [.decide(callback: "sceneWillEnterForeground", .collectionDisabled,
                                reason: "collection is off: the session is counted but not reported")]
            }
            return [.record(record)]
        case .foregroundLeft(let at):
            if let since = foregroundSince { foregroundMillis += max(0, at - since) }
            foregroundSince = nil
            return []
        case .extensionReceived(let json):
            let callback = "serviceExtension.didReceive"
            guard let consent = configuration.receipts, let marker = Self.marker(in: json), marker.receiptToken else { return [] }
            let allowed: Bool
            switch consent {
            case .appGroup: allowed = collectionEnabled
            case .granted: allowed = true
            case .refused, .unknown: allowed = false
            }
            guard allowed else {
                return [.decide(callback: callback, .noReceiptConsent,
                                reason: "receiptConfiguration is nil: the consent the extension reads is "
                                    + (consent == .appGroup ? "refused (the app's, through the App Group)" : consent.rawValue))]
            }
            var record = draft(.received, .serviceExtension)
            record.deliveryId = marker.deliveryId
            // The extension reads no notificationEventsEnabled of the app's; only the message's own request counts.
            guard marker.tracked else {
                return [.decide(callback: callback, .notTracked, reason: "the message did not ask for events (\(Self.trackEventsKey))")]
            }
            return [.record(record), .decide(callback: callback, .recorded, reason: "a background receipt from the extension")]
        case .bannerClicked(let deliveryId, let tracked):
            var record = draft(.clicked, .inAppBanner)
            record.deliveryId = deliveryId
            return gated("recordClick", tracked, record)
        }
    }

    /// `KitsNotificationActions.action(for:)`: the SDK's own button of the notification's category, nil for the
    /// default tap, another category's button and anything not registered by the SDK.
    func sdkAction(category: String, action: String) -> String? {
        guard let own = configuration.categories.first(where: { $0.identifier == category }),
              own.actions.contains(where: { $0.identifier == action }) else { return nil }
        return action
    }

    private func draft(_ kind: KitsRecord.Kind, _ source: KitsRecord.Source) -> KitsRecord {
        KitsRecord(kind: kind, source: source, deviceId: "", bundleId: "")
    }

    private func notOurs(_ callback: String) -> Action {
        .decide(callback: callback, .notOurs,
                reason: "no \(Self.deliveryIdKey) with \(Self.versionKey): \(Self.version): the host's own handler got it")
    }

    /// The record, or why none: the message's own request first, then collection, then the events option.
    private func gated(_ callback: String, _ tracked: Bool, _ record: KitsRecord) -> [Action] {
        if !tracked {
            return [.decide(callback: callback, .notTracked, reason: "the message did not ask for events (\(Self.trackEventsKey))")]
        }
        if !collectionEnabled {
            return [.decide(callback: callback, .collectionDisabled, reason: "collection is off (collectionEnabled false or refused)")]
        }
        if !eventsEnabled {
            return [.decide(callback: callback, .eventsDisabled, reason: "notificationEventsEnabled is false")]
        }
        return [.record(record), .decide(callback: callback, .recorded, reason: "sent to the ingest")]
    }
}
