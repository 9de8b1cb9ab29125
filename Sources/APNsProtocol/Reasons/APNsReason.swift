/// Every reason APNs puts in an error body, with Apple's exact string and HTTP status.
///
/// Raw values are the wire strings; case names are their lowerCamel form with no synonyms, so a search for
/// the wire string finds the case. Grouped by status as in Apple's "Handling notification responses from
/// APNs" table; the broadcast and channel-management reasons follow.
public enum APNsReason: String, Error, CaseIterable, Sendable, Codable, Hashable {
    // MARK: 400
    /// The collapse identifier exceeds the maximum allowed size (64 bytes).
    case badCollapseId = "BadCollapseId"
    /// The specified device token is invalid (bad hex, or not of this environment).
    case badDeviceToken = "BadDeviceToken"
    /// The apns-expiration value is invalid.
    case badExpirationDate = "BadExpirationDate"
    /// The apns-id value is invalid.
    case badMessageId = "BadMessageId"
    /// The apns-priority value is invalid.
    case badPriority = "BadPriority"
    /// The apns-topic value is invalid.
    case badTopic = "BadTopic"
    /// The device token doesn't match the specified topic.
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    /// One or more headers are repeated.
    case duplicateHeaders = "DuplicateHeaders"
    /// Idle timeout.
    case idleTimeout = "IdleTimeout"
    /// The apns-push-type value is invalid.
    case invalidPushType = "InvalidPushType"
    /// The device token isn't specified in the request :path.
    case missingDeviceToken = "MissingDeviceToken"
    /// The apns-topic header of the request isn't specified and is required.
    case missingTopic = "MissingTopic"
    /// The message payload is empty.
    case payloadEmpty = "PayloadEmpty"
    /// Pushing to this topic is not allowed.
    case topicDisallowed = "TopicDisallowed"

    // MARK: 403
    /// The certificate is invalid.
    case badCertificate = "BadCertificate"
    /// The client certificate is for the wrong environment.
    case badCertificateEnvironment = "BadCertificateEnvironment"
    /// The provider token is stale and a new token should be generated.
    case expiredProviderToken = "ExpiredProviderToken"
    /// The specified action is not allowed.
    case forbidden = "Forbidden"
    /// The provider token is not valid, or the token signature can't be verified.
    case invalidProviderToken = "InvalidProviderToken"
    /// No provider certificate was used to connect to APNs, and the authorization header is missing or no
    /// provider token is specified.
    case missingProviderToken = "MissingProviderToken"
    /// The key ID in the provider token isn't related to the key ID of the token used in the first push of
    /// this connection.
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    /// The key ID in the provider token doesn't match the environment.
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"

    // MARK: 404
    /// The request contained an invalid :path value.
    case badPath = "BadPath"

    // MARK: 405
    /// The specified :method value isn't POST.
    case methodNotAllowed = "MethodNotAllowed"

    // MARK: 410
    /// The device token has expired.
    case expiredToken = "ExpiredToken"
    /// The device token is inactive for the specified topic.
    case unregistered = "Unregistered"

    // MARK: 413
    /// The message payload is too large.
    case payloadTooLarge = "PayloadTooLarge"

    // MARK: 429
    /// The provider's authentication token is being updated too often.
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    /// Too many requests were made consecutively to the same device token.
    case tooManyRequests = "TooManyRequests"

    // MARK: 500
    /// An internal server error occurred.
    case internalServerError = "InternalServerError"

    // MARK: 503
    /// The service is unavailable.
    case serviceUnavailable = "ServiceUnavailable"
    /// The APNs server is shutting down.
    case shutdown = "Shutdown"

    // MARK: Broadcast and channel management (iOS 18 Live Activities)
    /// Broadcast capability is not enabled for the app.
    case featureNotEnabled = "FeatureNotEnabled"
    /// The apns-channel-id header is missing.
    case missingChannelId = "MissingChannelId"
    /// The apns-channel-id is not a valid channel id.
    case badChannelId = "BadChannelId"
    /// The channel id is not registered for the app.
    case channelNotRegistered = "ChannelNotRegistered"
    /// The request parameters are invalid.
    case badRequestParams = "BadRequestParams"
    /// The request payload is invalid.
    case badRequestPayload = "BadRequestPayload"
    /// The apns-push-type header is missing.
    case missingPushType = "MissingPushType"
    /// The channel configuration could not be created.
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    /// The topic in the request doesn't match the channel's.
    case topicMismatch = "TopicMismatch"

    /// The HTTP status Apple sends with this reason.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
             .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
             .missingTopic, .payloadEmpty, .topicDisallowed,
             .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
             .badRequestPayload, .missingPushType, .cannotCreateChannelConfig:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
             .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }

    /// Whether a 410 response carries `timestamp` (when the token stopped being valid).
    public var carriesTimestamp: Bool { status == 410 }
}
