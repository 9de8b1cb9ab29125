/// The broadcast and channel-management requests (iOS 18 Live Activities).
///
/// Paths: `POST|GET|DELETE /1/apps/<bundleId>/channels`, `GET /1/apps/<bundleId>/all-channels` (channel
/// management hosts) and `POST /4/broadcasts/apps/<bundleId>` (broadcast hosts).
public enum BroadcastOperation: Sendable, Equatable {
    case createChannel(bundleId: String, messageStoragePolicy: Int)
    case readChannel(bundleId: String, channelId: String)
    case deleteChannel(bundleId: String, channelId: String)
    case listChannels(bundleId: String)
    case send(bundleId: String, channelId: String, priority: Int, expiration: Int64?, payload: [UInt8])

    public var bundleId: String {
        switch self {
        case .createChannel(let b, _), .readChannel(let b, _), .deleteChannel(let b, _), .listChannels(let b),
             .send(let b, _, _, _, _):
            return b
        }
    }

    /// Whether `path` belongs to the broadcast API (rather than device pushes).
    public static func isBroadcastPath(_ path: String) -> Bool {
        path.hasPrefix("/1/apps/") || path.hasPrefix("/4/broadcasts/")
    }
}

/// A broadcast or channel request that passed validation.
public struct AcceptedBroadcast: Sendable {
    public var operation: BroadcastOperation
    /// `apns-request-id` as sent, or generated.
    public var requestId: String
    public var summary: RequestSummary
    public var environment: APNsEnvironment
}
