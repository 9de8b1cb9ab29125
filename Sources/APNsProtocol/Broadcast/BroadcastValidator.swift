import Foundation
import WireBytes

/// Validation of broadcast sends and channel management, in one documented order:
/// 1. path and method (BadPath, MethodNotAllowed);
/// 2. repeated headers (DuplicateHeaders) and a malformed `apns-request-id` (BadRequestParams);
/// 3. authentication as for device pushes, then the app in the path against the credentials
///    (TopicDisallowed for certificates, the policy's reason for topic keys);
/// 4. the app's broadcast capability (FeatureNotEnabled);
/// 5. per operation: the create body (BadRequestPayload, BadRequestParams); `apns-channel-id`
///    (MissingChannelId, BadChannelId, ChannelNotRegistered, TopicMismatch); for sends `apns-push-type`
///    (MissingPushType, InvalidPushType), priority, expiration and the payload (PayloadEmpty,
///    PayloadTooLarge, BadRequestPayload).
public struct BroadcastValidator: Sendable {
    public init() {}

    private enum Route { case channels, allChannels, broadcast }

    public func validate<Request: RequestMessage>(_ request: Request, context: ValidationContext,
                                                  channels: any ChannelLookup,
                                                  state: inout ConnectionAuthState) -> Result<AcceptedBroadcast, Rejection> {
        var summary = RequestSummary()
        let headers = request.headers
        var fields: [String: String] = [:]
        var duplicate = false
        for i in 0..<headers.count {
            let name = headers.name(at: i)
            if name.hasPrefix(":") { continue }
            if fields[name] != nil { duplicate = true }
            fields[name] = fields[name] ?? headers.value(at: i)
        }
        let method = request.method ?? ""
        let path = request.path ?? ""
        summary.apnsId = fields["apns-request-id"]
        let requestId = fields["apns-request-id"].flatMap { APNsID.isCanonical($0.utf8) ? $0 : nil } ?? APNsID.generate()
        func reject(_ reason: APNsReason) -> Result<AcceptedBroadcast, Rejection> {
            .failure(Rejection(reason: reason, apnsId: requestId, summary: summary))
        }

        // 1. Path and method.
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let route: Route
        let bundleId: String
        if parts.count == 5, parts[1] == "1", parts[2] == "apps", parts[4] == "channels", !parts[3].isEmpty {
            route = .channels
            bundleId = parts[3]
        } else if parts.count == 5, parts[1] == "1", parts[2] == "apps", parts[4] == "all-channels", !parts[3].isEmpty {
            route = .allChannels
            bundleId = parts[3]
        } else if parts.count == 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", !parts[4].isEmpty {
            route = .broadcast
            bundleId = parts[4]
        } else {
            return reject(.badPath)
        }
        summary.topic = bundleId
        switch (route, method) {
        case (.channels, "POST"), (.channels, "GET"), (.channels, "DELETE"), (.allChannels, "GET"), (.broadcast, "POST"):
            break
        default:
            return reject(.methodNotAllowed)
        }

        // 2. Headers.
        if duplicate { return reject(.duplicateHeaders) }
        if let id = fields["apns-request-id"], !APNsID.isCanonical(id.utf8) { return reject(.badRequestParams) }

        // 3. Authentication and the app in the path.
        if let reason = ProviderAuthenticator.authenticate(
            headers: headers, authorizationIndex: headers.firstIndex(of: "authorization"), context: context,
            state: &state, summary: &summary) {
            return reject(reason)
        }
        if case .certificate(let cert) = context.auth, !cert.allowedTopics.contains(bundleId) {
            return reject(.topicDisallowed)
        }
        if let reason = ProviderAuthenticator.topicKeyRejection(bundleId: bundleId, context: context, state: state,
                                                                 summary: &summary) {
            return reject(reason)
        }

        // 4. Capability.
        guard channels.broadcastEnabled(bundleId: bundleId) else { return reject(.featureNotEnabled) }

        func accept(_ op: BroadcastOperation) -> Result<AcceptedBroadcast, Rejection> {
            .success(AcceptedBroadcast(operation: op, requestId: requestId, summary: summary, environment: context.environment))
        }

        // A registered channel of this app in this environment.
        func channel() -> Result<String, APNsReason> {
            guard let id = fields["apns-channel-id"], !id.isEmpty else { return .failure(.missingChannelId) }
            guard let raw = Data(base64Encoded: id), !raw.isEmpty else { return .failure(.badChannelId) }
            guard let info = channels.channel(id), info.environment == context.environment else {
                return .failure(.channelNotRegistered)
            }
            guard info.bundleId == bundleId else { return .failure(.topicMismatch) }
            return .success(id)
        }

        // 5. Per operation.
        switch (route, method) {
        case (.allChannels, _):
            return accept(.listChannels(bundleId: bundleId))
        case (.channels, "POST"):
            guard request.bodyLength > 0,
                  let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] else {
                return reject(.badRequestPayload)
            }
            guard let policy = object["message-storage-policy"] as? Int, policy == 0 || policy == 1,
                  (object["push-type"] as? String)?.lowercased() == "liveactivity",
                  Set(object.keys).isSubset(of: ["message-storage-policy", "push-type"]) else {
                return reject(.badRequestParams)
            }
            return accept(.createChannel(bundleId: bundleId, messageStoragePolicy: policy))
        case (.channels, "GET"):
            switch channel() {
            case .failure(let r): return reject(r)
            case .success(let id): return accept(.readChannel(bundleId: bundleId, channelId: id))
            }
        case (.channels, _):
            switch channel() {
            case .failure(let r): return reject(r)
            case .success(let id): return accept(.deleteChannel(bundleId: bundleId, channelId: id))
            }
        default:
            let id: String
            switch channel() {
            case .failure(let r): return reject(r)
            case .success(let c): id = c
            }
            guard let type = fields["apns-push-type"] else { return reject(.missingPushType) }
            guard type.lowercased() == "liveactivity" else { return reject(.invalidPushType) }
            summary.pushType = .liveactivity
            var priority = 10
            if let p = fields["apns-priority"] {
                guard let v = Int(p), v == 10 || v == 5 || v == 1 else { return reject(.badPriority) }
                priority = v
                summary.priority = v
            }
            if let e = fields["apns-expiration"] {
                guard let v = Int64(e), v >= 0 else { return reject(.badExpirationDate) }
                summary.expiration = v
            }
            if request.bodyLength == 0 { return reject(.payloadEmpty) }
            if request.bodyExceededLimit || request.bodyLength > context.policy.broadcastPayloadLimit {
                return reject(.payloadTooLarge)
            }
            guard PayloadScanner.scan(request.body).isObject else { return reject(.badRequestPayload) }
            return accept(.send(bundleId: bundleId, channelId: id, priority: priority, expiration: summary.expiration,
                                payload: request.body))
        }
    }
}
