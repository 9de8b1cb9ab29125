import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport
import Testing

@testable import FrontDoors

/// The legacy API's two states: open (a legacy body is translated), and shut down as FCM shut it down.
@Suite struct FCMLegacyShutdownTests {
    static let certs = GoogleTokenEndpointTests.certs

    static func send(shutDown: Bool, authorization: String = "key=" + FCMSampleProject.serverKey) throws -> (Int, [String: Any]) {
        let doors = try FrontDoors(certificatesDirectory: certs, clock: ManualClock(), legacyShutDown: shutDown)
        let answer = doors.router.handle(HTTP1Request(
            method: "POST", path: "/fcm/send", headers: [H2Header("authorization", authorization)],
            body: Array(#"{"to":"not-a-token","notification":{"title":"t"}}"#.utf8)))
        return (answer.status, (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:])
    }

    @Test func shutDownEveryTargetIsDeprecatedApi() throws {
        let (status, body) = try Self.send(shutDown: true)
        #expect(status == 200)
        #expect(body["failure"] as? Int == 1)
        #expect((body["results"] as? [[String: String]]) == [["error": "DeprecatedApi"]])
    }

    @Test func openATargetIsCheckedAndAWrongServerKeyIsUnauthorized() throws {
        let (_, body) = try Self.send(shutDown: false)
        #expect((body["results"] as? [[String: String]]) == [["error": "InvalidRegistration"]])
        #expect(try Self.send(shutDown: false, authorization: "key=wrong").0 == 401)
    }
}
