import EmulatorControl

/// The managed push SDK inside an app. For each OS callback the host hands it, it decides whether the notification
/// is its own and which record it sends; the app carries out the returned actions.
///
/// Its rules: a notification is the SDK's only when the payload carries the server's `kits_delivery_id` with the
/// exact version marker (`kits_v: 1`); a record is sent only when the message asked for events
/// (`kits_track_events: true`), collection is on and `notificationEventsEnabled` is not false; willPresent means
/// RECEIVED, a real response other than a dismissal CLICKED, and a click never makes a RECEIVED.
struct KitsSDK: Sendable, Equatable {
    let configuration: KitsConfiguration
    /// Collection now: the initialization option until the app calls `setCollectionEnabled`, whose choice is
    /// stored (it outlives the process, and a stored refusal wins over the option at the next launch).
    private(set) var collectionEnabled: Bool

    init(_ configuration: KitsConfiguration) {
        self.configuration = configuration
        collectionEnabled = configuration.collectionEnabled
    }

    enum Input: Equatable {
        case didRegister(token: String)
        case willPresent(userInfoJson: String)
        case response(userInfoJson: String, actionIdentifier: String)
        case setCollectionEnabled(Bool)
    }

    enum Action: Equatable {
        case record(KitsRecord.Kind, KitsRecord.Source, deliveryId: String?, token: String?, actionIdentifier: String?)
        case decide(callback: String, KitsDecision.Outcome, reason: String)
        /// The SDK's notification: the host's own handler does not get it. For willPresent, whether it is shown.
        case claim(display: Bool)
    }

    /// The server's marks in a payload.
    struct Marker: Equatable {
        var deliveryId: String
        var tracked: Bool
    }

    static let deliveryIdKey = "kits_delivery_id"
    static let versionKey = "kits_v"
    static let version: Int64 = 1
    static let trackEventsKey = "kits_track_events"

    static func marker(in userInfoJson: String) -> Marker? {
        guard userInfoJson.utf8.count <= 1 << 20, userInfoJson.contains(deliveryIdKey),
              case .success(let document) = JSONDocument.parse(Array(userInfoJson.utf8)),
              let id = document.value[deliveryIdKey]?.string, !id.isEmpty,
              document.value[versionKey]?.integer == version
        else { return nil }
        return Marker(deliveryId: id, tracked: document.value[trackEventsKey]?.bool == true)
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
            return [.record(.token, .registerAPNsToken, deliveryId: nil, token: token, actionIdentifier: nil),
                    .decide(callback: "didRegisterForRemoteNotifications", .recorded,
                            reason: "this launch's token, registered for \(configuration.apnsEnvironment.rawValue)")]
        case .willPresent(let json):
            let callback = "willPresent"
            guard let marker = Self.marker(in: json) else { return [notOurs(callback)] }
            return [.claim(display: configuration.shouldDisplay)]
                + gated(callback, marker) { .record(.received, .willPresent, deliveryId: marker.deliveryId, token: nil,
                                                    actionIdentifier: nil) }
        case .response(let json, let action):
            let callback = "didReceiveResponse"
            guard let marker = Self.marker(in: json) else { return [notOurs(callback)] }
            guard configuration.sceneClickForwarding else {
                return [.decide(callback: callback, .notWired,
                                reason: "the Scene app does not forward clicks to the SDK: the host's handler got it")]
            }
            guard action != ActionIdentifier.dismissAction else {
                return [.claim(display: false), .decide(callback: callback, .dismissal, reason: "a dismissal is not a click")]
            }
            return [.claim(display: false)]
                + gated(callback, marker) { .record(.clicked, .response, deliveryId: marker.deliveryId, token: nil,
                                                    actionIdentifier: action) }
        }
    }

    private func notOurs(_ callback: String) -> Action {
        .decide(callback: callback, .notOurs,
                reason: "no \(Self.deliveryIdKey) with \(Self.versionKey): \(Self.version): the host's own handler got it")
    }

    /// The record, or why none: the message's own request first, then collection, then the events option.
    private func gated(_ callback: String, _ marker: Marker, _ record: () -> Action) -> [Action] {
        if !marker.tracked {
            return [.decide(callback: callback, .notTracked, reason: "the message did not ask for events (\(Self.trackEventsKey))")]
        }
        if !collectionEnabled {
            return [.decide(callback: callback, .collectionDisabled, reason: "collection is off (collectionEnabled false or refused)")]
        }
        if !eventsEnabled {
            return [.decide(callback: callback, .eventsDisabled, reason: "notificationEventsEnabled is false")]
        }
        return [record(), .decide(callback: callback, .recorded, reason: "sent to the ingest")]
    }
}
