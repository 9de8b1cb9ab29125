import APNsProtocol
import Foundation

/// A push as one replica hands it to the replica whose virtual device holds its token.
struct HandedOverPush: Codable {
    var token: String
    var topic: String
    var bundleId: String
    var pushType: PushType
    var priority: Int
    var apnsId: String
    var expiration: Int64?
    var collapseId: String?
    var payload: Data
    var environment: APNsEnvironment
    var acceptedAt: Millis
    /// The replica that accepted it.
    var from: String

    init(_ push: AcceptedPush, acceptedAt: Millis, from: String) {
        token = push.token
        topic = push.topic
        bundleId = push.bundleId
        pushType = push.pushType
        priority = push.priority
        apnsId = push.apnsId
        expiration = push.expiration
        collapseId = push.collapseId
        payload = Data(push.payload)
        environment = push.environment
        self.acceptedAt = acceptedAt
        self.from = from
    }

    /// The push as the accepting replica's validator produced it (the payload scanned again here).
    var accepted: AcceptedPush {
        AcceptedPush(token: token, topic: topic, bundleId: bundleId, pushType: pushType, priority: priority,
                     expiration: expiration, collapseId: collapseId, apnsId: apnsId, payload: Array(payload),
                     environment: environment)
    }
}
