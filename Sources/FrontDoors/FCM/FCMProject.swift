import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// A Firebase project as the FCM front door knows it: who may send (service accounts, the legacy server key) and
/// the APNs auth key uploaded to it, with which FCM signs its requests to APNs.
package struct FCMProject: Sendable {
    package var projectId: String
    /// The sender id registration tokens are bound to.
    package var projectNumber: UInt64
    /// Service-account e-mail → the public half of its key (the OAuth assertion's signer).
    package var serviceAccounts: [String: PublicKey]
    /// The legacy API's server key (`Authorization: key=…`), if any.
    package var serverKey: String?
    package var apnsKeyId: String
    package var apnsTeamId: String
    package var apnsKey: PrivateKey

    package init(projectId: String, projectNumber: UInt64, serviceAccounts: [String: PublicKey], serverKey: String?,
                 apnsKeyId: String, apnsTeamId: String, apnsKey: PrivateKey) {
        self.projectId = projectId
        self.projectNumber = projectNumber
        self.serviceAccounts = serviceAccounts
        self.serverKey = serverKey
        self.apnsKeyId = apnsKeyId
        self.apnsTeamId = apnsTeamId
        self.apnsKey = apnsKey
    }
}

/// The sample project of the development set: its service account in `fcm-service-account.json`, the sample APNs
/// key `AuthKey_DEVKEY1234.p8`.
package enum FCMSampleProject {
    package static let fileName = "fcm-service-account.json"
    /// The sample project's id (its service-account JSON's `project_id`).
    package static let projectIdDefault = "apns-emulator-demo"
    package static let projectNumber = HostedPushSDKs.sampleFirebaseProjectNumber
    package static let serverKey = "AAAA-apns-emulator-sample-legacy-server-key"

    /// The project, or why it cannot be read from `certificatesDirectory`.
    package static func load(from certificatesDirectory: String) -> Result<FCMProject, FrontDoorSetupError> {
        let dir = URL(fileURLWithPath: certificatesDirectory)
        let file = dir.appendingPathComponent(fileName).path
        guard let data = FileManager.default.contents(atPath: file),
              let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let projectId = json["project_id"] as? String, let email = json["client_email"] as? String,
              let pem = json["private_key"] as? String, let account = try? PrivateKey(pem: pem)
        else { return .failure(FrontDoorSetupError("\(file): not a service-account JSON with project_id, client_email and private_key")) }
        let keyFile = dir.appendingPathComponent("AuthKey_DEVKEY1234.p8").path
        guard let keyText = FileManager.default.contents(atPath: keyFile), let apnsKey = try? PrivateKey(pem: String(decoding: keyText, as: UTF8.self))
        else { return .failure(FrontDoorSetupError("\(keyFile): cannot read the sample APNs key")) }
        return .success(FCMProject(projectId: projectId, projectNumber: projectNumber, serviceAccounts: [email: account.publicKey],
                                   serverKey: serverKey, apnsKeyId: "DEVKEY1234", apnsTeamId: "DEVTEAM123", apnsKey: apnsKey))
    }
}

package struct FrontDoorSetupError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The projects and the OAuth access tokens issued for them.
package final class FCMProjects: Sendable {
    private struct Grant {
        var projectIds: Set<String>
        var scopes: Set<String>
        var expiresAt: Int64
    }

    private struct State {
        var projects: [String: FCMProject] = [:]
        var grants: [String: Grant] = [:]
    }

    /// Access tokens held at once; the oldest to expire go first past it (a client refreshing in a loop cannot grow it).
    static let maxGrants = 10_000
    private let state = Mutex(State())
    private let initial: [FCMProject]

    package init(_ projects: [FCMProject]) {
        initial = projects
        reset()
    }

    package func reset() {
        let initial = self.initial
        state.withLock { s in
            s = State()
            for p in initial { s.projects[p.projectId] = p }
        }
    }

    package func put(_ project: FCMProject) { state.withLock { $0.projects[project.projectId] = project } }
    package func project(_ id: String) -> FCMProject? { state.withLock { $0.projects[id] } }
    package var all: [FCMProject] { state.withLock { $0.projects.values.sorted { $0.projectId < $1.projectId } } }

    /// The projects a service account belongs to, with its key.
    func serviceAccount(_ email: String) -> (key: PublicKey, projectIds: Set<String>)? {
        state.withLock { s in
            var key: PublicKey?
            var ids: Set<String> = []
            for p in s.projects.values { if let k = p.serviceAccounts[email] { key = k; ids.insert(p.projectId) } }
            return key.map { ($0, ids) }
        }
    }

    /// The project whose legacy server key this is.
    func project(serverKey: String) -> FCMProject? {
        state.withLock { s in s.projects.values.first { $0.serverKey == serverKey } }
    }

    func issue(_ token: String, projectIds: Set<String>, scopes: Set<String>, expiresAt: Int64, now: Int64) {
        state.withLock { s in
            if s.grants.count >= Self.maxGrants {
                s.grants = s.grants.filter { $0.value.expiresAt > now }
                while s.grants.count >= Self.maxGrants, let oldest = s.grants.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                    s.grants[oldest.key] = nil
                }
            }
            s.grants[token] = Grant(projectIds: projectIds, scopes: scopes, expiresAt: expiresAt)
        }
    }

    /// An access token for `account`, as the token endpoint would issue it (for requests the emulator makes on a
    /// sender's behalf).
    func grant(account: String, nowSeconds: Int64) -> String {
        let ids = state.withLock { s in Set(s.projects.values.filter { $0.serviceAccounts[account] != nil }.map(\.projectId)) }
        let token = "ya29.emulator-" + UUID().uuidString.lowercased()
        issue(token, projectIds: ids, scopes: ["https://www.googleapis.com/auth/firebase.messaging"],
              expiresAt: nowSeconds + GoogleTokenEndpoint.lifetimeSeconds, now: nowSeconds)
        return token
    }

    /// Checks a bearer token for sending to `projectId` at `now`.
    func authorize(bearer token: String, projectId: String, now: Int64) throws(FCMError) {
        let grant = state.withLock { $0.grants[token] }
        guard let grant, grant.expiresAt > now else { throw FCMError.unauthenticated }
        guard grant.scopes.contains("https://www.googleapis.com/auth/firebase.messaging")
            || grant.scopes.contains("https://www.googleapis.com/auth/cloud-platform")
        else { throw FCMError(status: 403, apiStatus: "PERMISSION_DENIED", "Request had insufficient authentication scopes.") }
        guard grant.projectIds.contains(projectId) else {
            throw FCMError(status: 403, apiStatus: "PERMISSION_DENIED",
                           "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/"
                               + "\(projectId)' (or it may not exist).")
        }
    }
}
