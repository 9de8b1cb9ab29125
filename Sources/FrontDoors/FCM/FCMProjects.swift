import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

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

    /// Each project a service account belongs to, with the account's key there (one account may be registered with
    /// different keys in different projects).
    func serviceAccount(_ email: String) -> [(projectId: String, key: PublicKey)] {
        state.withLock { s in
            s.projects.values.compactMap { p in p.serviceAccounts[email].map { (p.projectId, $0) } }.sorted { $0.projectId < $1.projectId }
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

    /// Google's token endpoint on `form`, for the fuzz harness (the endpoint itself is internal).
    package func exchangeForFuzzing(form: [UInt8]) -> Int { GoogleTokenEndpoint(projects: self).exchange(form: form, nowSeconds: 0).status }
}
