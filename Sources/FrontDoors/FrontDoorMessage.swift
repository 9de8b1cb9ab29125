import Synchronization

/// One message a front door received, what it made of it and what APNs answered: the diagnostics a sender reads
/// at `GET /_emulator/front-doors/messages`.
package struct FrontDoorMessage: Sendable, Encodable {
    package var id: String
    /// Milliseconds since 1970 on the emulator's clock.
    package var receivedAt: Int64
    /// `fcm-v1`, `fcm-legacy`, `onesignal`.
    package var api: String
    package var project: String
    package var target: String?
    /// The APNs request made of it (nil when none was made).
    package var apns: RelayedRequest?
    /// APNs' answer to it.
    package var apnsStatus: Int?
    package var apnsReason: String?
    package var apnsId: String?
    /// The front door's own answer.
    package var status: Int
    package var error: String?
    /// What was ignored, not sent, or would not do what the sender may expect, in words.
    package var notes: [String]

    package struct RelayedRequest: Sendable, Encodable {
        package var token: String
        package var environment: String
        package var headers: [String: String]
        package var payload: String
    }
}
