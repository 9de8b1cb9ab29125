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

    /// The app a broadcast or channel path names (`/1/apps/<id>/…`, `/4/broadcasts/apps/<id>`), if any: the
    /// topic these requests are about, since they carry no `apns-topic`.
    public static func bundleId(inPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 4, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty { return String(parts[3]) }
        if parts.count >= 5, parts[1] == "4", parts[2] == "broadcasts", parts[3] == "apps", !parts[4].isEmpty {
            return String(parts[4])
        }
        return nil
    }

    /// Whether `path` belongs to the broadcast API (rather than device pushes).
    public static func isBroadcastPath(_ path: String) -> Bool {
        path.hasPrefix("/1/apps/") || path.hasPrefix("/4/broadcasts/")
    }
}

/// A broadcast or channel request that passed validation.
public struct AcceptedBroadcast: ValidatedRequest {
    public var operation: BroadcastOperation
    /// `apns-request-id` as sent, or generated.
    public var requestId: String
    public var summary: RequestSummary
    public var environment: APNsEnvironment

    public var responseId: String { requestId }
}
