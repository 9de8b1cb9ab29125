import Foundation

/// An HTTP v1 API error as FCM writes it: `{"error": {"code", "message", "status", "details": [FcmError]}}`.
///
/// `errorCode` is FCM's own code (the `google.firebase.fcm.v1.FcmError` detail clients such as firebase-admin read
/// to raise `UnregisteredError`, `SenderIdMismatchError`, …); errors outside FCM's list (authentication) carry
/// only the Google API status.
package struct FCMError: Error, Equatable, Sendable {
    package enum Code: String, Sendable {
        case invalidArgument = "INVALID_ARGUMENT"
        case unregistered = "UNREGISTERED"
        case senderIdMismatch = "SENDER_ID_MISMATCH"
        case quotaExceeded = "QUOTA_EXCEEDED"
        case unavailable = "UNAVAILABLE"
        case internalError = "INTERNAL"
        case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

        /// The HTTP status FCM documents for the code, and the Google API status it goes with.
        var http: (status: Int, apiStatus: String) {
            switch self {
            case .invalidArgument: (400, "INVALID_ARGUMENT")
            case .unregistered: (404, "NOT_FOUND")
            case .senderIdMismatch: (403, "PERMISSION_DENIED")
            case .quotaExceeded: (429, "RESOURCE_EXHAUSTED")
            case .unavailable: (503, "UNAVAILABLE")
            case .internalError: (500, "INTERNAL")
            case .thirdPartyAuthError: (401, "UNAUTHENTICATED")
            }
        }
    }

    package var status: Int
    package var apiStatus: String
    package var fcmCode: Code?
    package var message: String

    package init(_ code: Code, _ message: String) {
        (status, apiStatus) = code.http
        fcmCode = code
        self.message = message
    }

    /// An error of the Google API layer, before FCM looked at the message (authentication, routing).
    package init(status: Int, apiStatus: String, _ message: String) {
        self.status = status
        self.apiStatus = apiStatus
        fcmCode = nil
        self.message = message
    }

    static func invalid(_ message: String) -> FCMError { FCMError(.invalidArgument, message) }

    static let unauthenticated = FCMError(
        status: 401, apiStatus: "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid"
            + " authentication credential.")

    /// The response body.
    package var body: [UInt8] {
        var error: [String: Any] = ["code": status, "message": message, "status": apiStatus]
        if let fcmCode {
            error["details"] = [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcmCode.rawValue]]
        }
        return JSONText.bytes(["error": error])
    }
}
