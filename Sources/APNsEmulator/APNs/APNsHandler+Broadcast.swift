import APNsProtocol
import Foundation
import H2Transport

extension APNsHandler {
    /// Broadcast sends and channel management (iOS 18 Live Activities): validation, the channel registry,
    /// and answers carrying `apns-request-id` instead of `apns-id`.
    func handleBroadcast(_ request: H2Request, context: ValidationContext, connection: H2ServerConnection,
                         state: APNsConnectionState, fault: FaultHit?, started: UInt64, responder: H2Responder) {
        let outcome = Self.applyFault(fault, to: BroadcastValidator().validate(
            request, context: context, channels: services.channels, state: &state.authState), now: context.now)
        var response: H2Response
        var status: Int
        var reason: String? = nil
        /// The reason answered, when one was: a rejection by validation or by the channel registry alike counts
        /// as rejected in the metrics and the connection's error rules.
        var reasonAnswered: APNsReason?
        switch outcome {
        case .success(let broadcast):
            var fields = extraFields
            fields.append(name: "apns-request-id", value: broadcast.requestId)
            let env = broadcast.environment
            switch broadcast.operation {
            case .createChannel(let bundleId, let storage):
                if let id = services.channels.create(bundleId: bundleId, environment: env, messageStoragePolicy: storage) {
                    fields.append(name: "apns-channel-id", value: id)
                    response = H2Response(status: 201, fields: fields)
                } else {
                    response = rejection(.cannotCreateChannelConfig, requestId: broadcast.requestId)
                    reason = policy.wireString(for: .cannotCreateChannelConfig)
                    reasonAnswered = .cannotCreateChannelConfig
                }
            case .readChannel(_, let id):
                let info = services.channels.channel(id)
                fields.append(name: "content-type", value: "application/json")
                response = H2Response(status: 200, fields: fields, body: Array(
                    #"{"message-storage-policy":\#(info?.messageStoragePolicy ?? 0),"push-type":"LiveActivity"}"#.utf8))
            case .deleteChannel(_, let id):
                services.channels.delete(id)
                response = H2Response(status: 204, fields: fields)
            case .listChannels(let bundleId):
                let ids = services.channels.list(bundleId: bundleId, environment: env)
                let body = (try? JSONSerialization.data(withJSONObject: ["channels": ids])) ?? Data()
                fields.append(name: "content-type", value: "application/json")
                response = H2Response(status: 200, fields: fields, body: Array(body))
            case .send:
                if env == .sandbox { fields.append(name: "apns-unique-id", value: APNsID.generate()) }
                response = H2Response(status: 200, fields: fields)
            }
            status = response.status
            if let refused = reasonAnswered {
                rejected(refused, connection: connection, state: state)
            } else {
                self.accepted(connection: connection, state: state)
            }
            journal(request, connection: connection, environment: env, summary: broadcast.summary, status: status,
                    reason: reason, timestamp: nil, apnsId: broadcast.requestId, uniqueId: response["apns-unique-id"],
                    started: started, fault: fault, now: context.now, auth: state.auth, authRejection: nil)
        case .failure(let r):
            reasonAnswered = r.reason
            response = rejection(r.reason, requestId: r.apnsId, timestamp: r.timestamp)
            status = r.reason.status
            journal(request, connection: connection, environment: context.environment, summary: r.summary,
                    status: status, reason: policy.wireString(for: r.reason), timestamp: r.timestamp, apnsId: r.apnsId,
                    uniqueId: nil, started: started, fault: fault, now: context.now, auth: state.auth,
                    authRejection: Self.isAuthReason(r.reason) ? r.reason : nil)
            rejected(r.reason, connection: connection, state: state)
        }
        send(response, fault: fault, connection: connection, responder: responder,
             record: Answer(reason: reasonAnswered, status: response.status, pushType: .liveactivity,
                            environment: context.environment, started: started),
             state: state, now: context.now)
    }

    private func rejection(_ reason: APNsReason, requestId: String, timestamp: Int64? = nil) -> H2Response {
        APNsResponseBuilder.rejection(reason, timestamp: timestamp, apnsId: requestId, idHeader: "apns-request-id",
                                      policy: policy, extra: extraFields)
    }
}
