import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport

/// OneSignal's create-notification endpoint: `POST /notifications` (api.onesignal.com, the official clients) and
/// `POST /api/v1/notifications` (onesignal.com, the older clients), authorised by the app's REST API key
/// (`Authorization: Key …`, or `Basic …` as older clients send it).
package struct OneSignalFrontDoor: Sendable {
    package let apps: OneSignalApps
    let relay: APNsRelay
    let log: FrontDoorLog
    let clock: any EmulatorClock

    /// Targets one notification may name (OneSignal's limit per REST call).
    static let maxTargets = 2000

    func handle(_ request: HTTP1Request) -> HTTP1Response? {
        guard request.path == "/notifications" || request.path == "/api/v1/notifications" else { return nil }
        guard request.method == "POST" else { return FCMFrontDoor.methodNotAllowed }
        return create(request)
    }

    private func create(_ request: HTTP1Request) -> HTTP1Response {
        let now = clock.now()
        let notificationId = UUID().uuidString.lowercased()
        var entry = FrontDoorMessage(id: notificationId, receivedAt: now, api: "onesignal", project: "", status: 200, notes: [])
        func fail(_ error: OneSignalError) -> HTTP1Response {
            entry.status = error.status
            entry.error = error.message
            log.append(entry)
            return FCMFrontDoor.json(error.status, error.body)
        }
        guard !request.bodyExceededLimit, request.body.count <= FCMFrontDoor.maxBodyBytes else {
            return fail(OneSignalError(400, "The request body is over \(FCMFrontDoor.maxBodyBytes) bytes"))
        }
        let document: JSONDocument
        switch JSONDocument.parse(request.body, budget: 16 << 20) {
        case .success(let d) where d.value.kind == .object: document = d
        case .success: return fail(OneSignalError(400, "The body must be a JSON object"))
        case .failure(let e): return fail(OneSignalError(400, "The body is not JSON: \(e)"))
        }
        let body = document.value
        guard let appId = body["app_id"]?.string else { return fail(OneSignalError(400, "app_id not found. You may be missing a Content-Type header.")) }
        entry.project = appId
        guard let app = apps.app(appId) else { return fail(OneSignalError(400, "app_id \(appId) is not an app of this emulator")) }
        let authorization = request.header("authorization") ?? ""
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, ["key", "basic"].contains(parts[0].lowercased()), parts[1] == app.restApiKey else {
            return fail(OneSignalError(403, "Access denied.  Please include an 'Authorization: Key <your REST API key>' header"
                                       + " with the app's REST API key."))
        }
        let targets: Targets
        do { targets = try Targets(body, app: app, apps: apps) } catch { return fail(error) }
        entry.target = targets.description
        let plan: OneSignalTranslator.Plan
        do { plan = try OneSignalTranslator.plan(body, notificationId: notificationId, nowSeconds: now / 1000) } catch { return fail(error) }
        entry.notes = plan.notes + targets.notes
        guard !targets.subscriptions.isEmpty else {
            log.append(entry)
            return FCMFrontDoor.json(200, JSONText.bytes(["id": "", "errors": ["All included players are not subscribed"]]))
        }
        for subscription in targets.subscriptions {
            let (push, _) = OneSignalTranslator.push(plan, to: subscription, bundleId: app.bundleId) { type, count in
                apps.nextBadge(type, count, of: subscription.id)
            }
            var one = entry
            one.target = subscription.id
            one.apns = FCMFrontDoor.describe(push)
            switch relay.send(push, keyId: app.apnsKeyId, teamId: app.apnsTeamId, key: app.apnsKey, nowSeconds: now / 1000) {
            case .failure(let error):
                one.error = error.message
            case .success(let answer):
                one.apnsStatus = answer.status
                one.apnsReason = answer.reason
                one.apnsId = answer.apnsId
                if answer.status != 200 {
                    one.error = "APNs refused it: \(answer.status) \(answer.reason ?? "")"
                }
            }
            log.append(one)
        }
        var answer: [String: Any] = ["id": notificationId, "external_id": NSNull()]
        if !targets.invalid.isEmpty { answer["errors"] = targets.invalid }
        return FCMFrontDoor.json(200, JSONText.bytes(answer))
    }

    /// Who a notification is for: subscription ids, external user ids (aliases) or segments.
    struct Targets: CustomStringConvertible {
        var subscriptions: [OneSignalSubscription] = []
        /// The `errors` object of the answer for targets that match no subscription.
        var invalid: [String: Any] = [:]
        var notes: [String] = []
        var description = ""

        init(_ body: JSONNode, app: OneSignalApp, apps: OneSignalApps) throws(OneSignalError) {
            func strings(_ name: String) throws(OneSignalError) -> [String]? {
                guard let node = body[name], !node.isNull else { return nil }
                let values = node.elements.compactMap(\.string)
                guard node.kind == .array, values.count == node.elements.count else {
                    throw OneSignalError(400, "\(name) must be an array of strings")
                }
                guard values.count <= OneSignalFrontDoor.maxTargets else {
                    throw OneSignalError(400, "\(name) holds more than \(OneSignalFrontDoor.maxTargets) entries")
                }
                return values
            }
            if let channel = body["target_channel"]?.string, channel != "push" {
                throw OneSignalError(400, "target_channel \(channel): the emulator sends push notifications only")
            }
            // One snapshot (one walk of the device farm), looked up by id and by user.
            let own = apps.subscriptions(of: app.appId)
            let byId = Dictionary(own.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let byUser = Dictionary(grouping: own.filter { $0.externalId != nil }, by: { $0.externalId! })
            func users(_ ids: [String], missingKey: String) {
                var missing: [String] = []
                for id in ids {
                    let found = byUser[id] ?? []
                    if found.isEmpty { missing.append(id) }
                    subscriptions += found
                }
                if !missing.isEmpty { invalid[missingKey] = missing }
            }
            let subscriptionIds = try strings("include_subscription_ids")
            let playerIds = try strings("include_player_ids")
            if let ids = subscriptionIds ?? playerIds {
                var missing: [String] = []
                for id in ids {
                    if let s = byId[id.lowercased()] { subscriptions.append(s) } else { missing.append(id) }
                }
                if !missing.isEmpty { invalid["invalid_player_ids"] = missing }
                description = "subscriptions " + ids.joined(separator: ",")
            } else if let aliases = body["include_aliases"] {
                guard aliases.kind == .object, aliases.keys == ["external_id"], let list = aliases["external_id"], list.kind == .array
                else { throw OneSignalError(400, "include_aliases: the emulator targets the external_id alias") }
                let ids = list.elements.compactMap(\.string)
                guard ids.count == list.elements.count, ids.count <= OneSignalFrontDoor.maxTargets else {
                    throw OneSignalError(400, "include_aliases.external_id must be up to \(OneSignalFrontDoor.maxTargets) strings")
                }
                users(ids, missingKey: "invalid_aliases")
                if let missing = invalid.removeValue(forKey: "invalid_aliases") { invalid["invalid_aliases"] = ["external_id": missing] }
                description = "external_id " + ids.joined(separator: ",")
            } else if let ids = try strings("include_external_user_ids") {
                users(ids, missingKey: "invalid_external_user_ids")
                description = "external user ids " + ids.joined(separator: ",")
            } else if let tokens = try strings("include_ios_tokens") {
                let lower = Set(tokens.map { $0.lowercased() })
                subscriptions = own.filter { lower.contains($0.apnsToken) }
                notes.append("include_ios_tokens reaches only tokens a subscription of this app registered")
                description = "iOS tokens " + tokens.joined(separator: ",")
            } else if let segments = try strings("included_segments") {
                guard segments.allSatisfy({ ["All", "Subscribed Users", "Total Subscriptions", "Active Users"].contains($0) }) else {
                    throw OneSignalError(400, "included_segments: the emulator knows All, Subscribed Users, Total Subscriptions and Active Users")
                }
                subscriptions = own
                description = "segments " + segments.joined(separator: ",")
            } else {
                throw OneSignalError(400, "You must include which players, segments, or tags you wish to send this notification to.")
            }
            // A subscription named twice (two ids of one user, an id and its user) gets one notification.
            var seen: Set<String> = []
            subscriptions = subscriptions.filter { seen.insert($0.id).inserted }
        }
    }
}
