import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport
import VirtualDevices

/// Routes the listener's requests to the provider they belong to.
struct FrontDoorRouter: HTTP1Handler {
    let fcm: FCMFrontDoor
    let oneSignal: OneSignalFrontDoor

    func handle(_ request: HTTP1Request) -> HTTP1Response {
        if let answer = fcm.handle(request) ?? oneSignal.handle(request) { return answer }
        return FCMFrontDoor.json(404, JSONText.bytes(["error": [
            "code": 404, "status": "NOT_FOUND",
            "message": "\(request.method) \(request.path) is not an endpoint of the emulator's front doors"
                + " (POST /token, POST /v1/projects/{project}/messages:send, POST /fcm/send, POST /notifications,"
                + " POST /api/v1/notifications)",
        ] as [String: Any]]))
    }
}
