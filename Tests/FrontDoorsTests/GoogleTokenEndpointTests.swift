import APNsEmulator
import EmulatorControl
import Foundation
import OpenSSLSupport
import SpawnedProcess
import Testing

@testable import APNsProtocol
@testable import FrontDoors

/// Google's token endpoint as the front door answers it: the JWT-bearer grant of a service account, and what it
/// refuses (the assertion's shape, algorithm, signer, signature and lifetime).
@Suite struct GoogleTokenEndpointTests {
    static let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("certs").path
    static let email = "firebase-adminsdk@apns-emulator-demo.iam.gserviceaccount.com"

    let projects: FCMProjects
    let key: PrivateKey

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.certs + "/fcm-service-account.json"))
        let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        key = try PrivateKey(pem: try #require(json["private_key"] as? String))
        projects = FCMProjects([try FCMSampleProject.load(from: Self.certs).get()])
    }

    func assertion(alg: String = "RS256", iss: String = email, iat: Int64 = 1_000, exp: Int64 = 4_600,
                   scope: String = "https://www.googleapis.com/auth/firebase.messaging", signer: PrivateKey? = nil) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"JWT"}"#.utf8))
        let claims = Base64URL.encode(Array(
            #"{"iss":"\#(iss)","scope":"\#(scope)","aud":"https://oauth2.googleapis.com/token","iat":\#(iat),"exp":\#(exp)}"#.utf8))
        let input = header + "." + claims
        return input + "." + Base64URL.encode(try (signer ?? key).signRS256(Array(input.utf8)))
    }

    func exchange(_ assertion: String, grant: String = GoogleTokenEndpoint.grantType, now: Int64 = 1_010) -> (Int, [String: Any]) {
        let form = "grant_type=" + grant.replacingOccurrences(of: ":", with: "%3A") + "&assertion=" + assertion
        let (status, body) = GoogleTokenEndpoint(projects: projects).exchange(form: Array(form.utf8), nowSeconds: now)
        return (status, (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:])
    }

    @Test func aSignedAssertionOfTheServiceAccountGetsAnAccessTokenThatMaySend() throws {
        let (status, body) = exchange(try assertion())
        #expect(status == 200)
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["expires_in"] as? Int == 3599)
        let token = try #require(body["access_token"] as? String)
        try projects.authorize(bearer: token, projectId: "apns-emulator-demo", now: 1_020)
        let other = #expect(throws: FCMError.self) { try projects.authorize(bearer: token, projectId: "other", now: 1_020) }
        #expect(other?.status == 403 && other?.message.contains("cloudmessaging.messages.create") == true)
        let expired = #expect(throws: FCMError.self) {
            try projects.authorize(bearer: token, projectId: "apns-emulator-demo", now: 1_010 + 3_600)
        }
        #expect(expired?.status == 401)
    }

    @Test func whatTheEndpointRefuses() async throws {
        func error(_ a: String, grant: String = GoogleTokenEndpoint.grantType, now: Int64 = 1_010) -> String? {
            let (status, body) = exchange(a, grant: grant, now: now)
            return status == 400 ? body["error_description"] as? String : "status \(status)"
        }
        let valid = try assertion()
        var forged = Array(valid)
        forged[forged.count - 3] = forged[forged.count - 3] == "A" ? "B" : "A"
        #expect(error(String(forged)) == "Invalid JWT Signature.")
        #expect(error(try assertion(signer: try await Self.otherRSAKey())) == "Invalid JWT Signature.")
        #expect(error(try assertion(iss: "someone@else.iam.gserviceaccount.com")) == "Invalid grant: account not found")
        #expect(error(try assertion(alg: "HS256"))?.contains("must be RS256") == true)
        #expect(error(try assertion(exp: 1_000 + 7_200))?.contains("short-lived") == true)
        #expect(error(try assertion(), now: 4_700)?.contains("short-lived") == true)
        #expect(error(try assertion(scope: ""))?.contains("scope") == true)
        #expect(error("not.a.jwt")?.contains("compact JWS") == true)
        #expect(exchange(valid, grant: "password").1["error"] as? String == "unsupported_grant_type")
    }

    @Test func anAccessTokenWithoutAMessagingScopeMayNotSend() throws {
        let (_, body) = exchange(try assertion(scope: "https://www.googleapis.com/auth/userinfo.email"))
        let token = try #require(body["access_token"] as? String)
        let refused = #expect(throws: FCMError.self) { try projects.authorize(bearer: token, projectId: "apns-emulator-demo", now: 1_020) }
        #expect(refused?.status == 403 && refused?.message == "Request had insufficient authentication scopes.")
    }

    @Test(arguments: ["grant_type=a b&assertion=x", "%", "grant_type=%zz", "a=%E2%28", "#", "grant_type=\u{0}", "&&==&"])
    func aMalformedFormIsA400AndNeverACrash(form: String) {
        let (status, body) = GoogleTokenEndpoint(projects: projects).exchange(form: Array(form.utf8), nowSeconds: 1_010)
        #expect(status == 400)
        let error = (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String
        #expect(["invalid_request", "unsupported_grant_type"].contains(error ?? ""), "\(form): \(String(decoding: body, as: UTF8.self))")
    }

    @Test func nonUTF8BytesAreRefused() {
        let (status, _) = GoogleTokenEndpoint(projects: projects).exchange(form: [0x61, 0x3D, 0xFF, 0xFE], nowSeconds: 1_010)
        #expect(status == 400)
    }

    /// A second RSA key, from the `openssl` CLI (OpenSSLSupport generates only P-256 keys).
    static func otherRSAKey() async throws -> PrivateKey {
        let run = try await SpawnedProcess.runToCompletion(
            "openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
            directory: URL(fileURLWithPath: certs), timeout: .seconds(60))
        #expect(run.status == 0, "\(run.transcript)")
        return try PrivateKey(pem: run.stdout)
    }
}
