import APNsProtocol
import Foundation
import WireBytes

/// Broadcast sends and channel management (iOS 18 Live Activities): validation, the channel registry, and
/// answers carrying `apns-request-id` instead of `apns-id`.
extension PushPipeline {
    func decideBroadcast<Request: RequestMessage>(_ request: Request, fault: FaultHit?, state: APNsConnectionState,
                                                  now: Millis) -> PushDecision {
        let outcome = Self.applyFault(fault, to: BroadcastValidator().validate(
            request, context: state.validation, channels: channels, state: &state.authState), now: now)
        switch outcome {
        case .success(let broadcast):
            let answer = perform(broadcast)
            let refused = answer.status >= 400 ? APNsReason.cannotCreateChannelConfig : nil
            var decision = PushDecision(
                answer: .answer(answer), environment: broadcast.environment,
                record: .init(status: answer.status, reason: refused, id: broadcast.requestId,
                              uniqueId: answer["apns-unique-id"], summary: .init(broadcast.summary), pushType: .liveactivity,
                              authMode: authMode(request, broadcast.summary, state), faultId: fault?.id))
            if let refused {
                decision.effects.goAwayBeforeAnswer = rejected(refused, state)
            } else {
                accepted(state)
            }
            return decision
        case .failure(let r):
            var decision = PushDecision(
                answer: .answer(APNsAnswer.rejection(r.reason, timestamp: r.timestamp, id: r.apnsId, idHeader: .requestId,
                                                     policy: policy)),
                environment: state.validation.environment,
                record: rejectionRecord(r, request, state, fault: fault, pushType: .liveactivity))
            decision.effects.goAwayBeforeAnswer = rejected(r.reason, state)
            return decision
        }
    }

    /// Carries out a validated broadcast or channel operation against the channel registry.
    private func perform(_ broadcast: AcceptedBroadcast) -> APNsAnswer {
        var fields = [APNsAnswer.Field(APNsAnswer.IDHeader.requestId.rawValue, broadcast.requestId)]
        let env = broadcast.environment
        let json = APNsAnswer.Field("content-type", "application/json")
        switch broadcast.operation {
        case .createChannel(let bundleId, let storage):
            guard let id = channels.create(bundleId: bundleId, environment: env, messageStoragePolicy: storage) else {
                return APNsAnswer.rejection(.cannotCreateChannelConfig, timestamp: nil, id: broadcast.requestId,
                                            idHeader: .requestId, policy: policy)
            }
            fields.append(APNsAnswer.Field("apns-channel-id", id))
            return APNsAnswer(status: 201, fields: fields)
        case .readChannel(_, let id):
            let info = channels.channel(id)
            fields.append(json)
            return APNsAnswer(status: 200, fields: fields, body: Array(
                #"{"message-storage-policy":\#(info?.messageStoragePolicy ?? 0),"push-type":"LiveActivity"}"#.utf8))
        case .deleteChannel(_, let id):
            channels.delete(id)
            return APNsAnswer(status: 204, fields: fields)
        case .listChannels(let bundleId):
            let ids = channels.list(bundleId: bundleId, environment: env)
            let body = (try? JSONSerialization.data(withJSONObject: ["channels": ids])) ?? Data()
            fields.append(json)
            return APNsAnswer(status: 200, fields: fields, body: Array(body))
        case .send:
            if env == .sandbox { fields.append(APNsAnswer.Field("apns-unique-id", APNsID.generate())) }
            return APNsAnswer(status: 200, fields: fields)
        }
    }
}
