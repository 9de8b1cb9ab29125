/// APNs' answer to one relayed push.
package struct RelayAnswer: Sendable, Equatable {
    package var status: Int
    package var reason: String?
    package var apnsId: String?

    /// APNs' refusal as FCM reports it (nil for a 200). From FCM's error-code table: an APNs credential problem is
    /// THIRD_PARTY_AUTH_ERROR, a token APNs no longer knows UNREGISTERED, APNs throttling QUOTA_EXCEEDED, APNs
    /// unavailable UNAVAILABLE; other refusals are invalid arguments, with Apple's reason in the message.
    var fcmError: FCMError? {
        guard status != 200 else { return nil }
        let reason = self.reason ?? "HTTP \(status)"
        switch (status, reason) {
        case (410, _), (400, "BadDeviceToken"):
            return FCMError(.unregistered, "Requested entity was not found. (APNs: \(reason))")
        case (403, _):
            return FCMError(.thirdPartyAuthError, "Auth error from APNS or Web Push Service (APNs: \(reason))")
        case (429, _):
            return FCMError(.quotaExceeded, "Quota exceeded for this device (APNs: \(reason))")
        case (500..., _):
            return FCMError(.unavailable, "The service is currently unavailable. (APNs: \(reason))")
        default:
            return FCMError(.invalidArgument, "Request contains an invalid argument. (APNs: \(status) \(reason))")
        }
    }
}
