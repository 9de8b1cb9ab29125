import Foundation
import VirtualDevices
import OpenSSLSupport
import Synchronization

/// The apps and their subscriptions.
package final class OneSignalApps: Sendable {
    private struct State {
        var apps: [String: OneSignalApp] = [:]
        var subscriptions: [String: OneSignalSubscription] = [:]
        var order: [String] = []
        /// The badge count OneSignal keeps, by subscription id (registered ones and those of virtual apps).
        var badges: [String: Int64] = [:]
    }

    /// Subscriptions held at once; a registration past it is refused (control API 409) rather than growing memory.
    static let maxSubscriptions = 100_000
    private let state = Mutex(State())
    private let initial: [OneSignalApp]
    /// The subscriptions the OneSignal SDK of virtual apps registered: (app id, subscription).
    private let hosted: @Sendable () -> [OneSignalSubscription]

    package init(_ apps: [OneSignalApp], hosted: @escaping @Sendable () -> [OneSignalSubscription] = { [] }) {
        initial = apps
        self.hosted = hosted
        reset()
    }

    package func reset() {
        let initial = self.initial
        state.withLock { s in
            s = State()
            for a in initial { s.apps[a.appId] = a }
        }
    }

    package func put(_ app: OneSignalApp) { state.withLock { $0.apps[app.appId] = app } }
    package func app(_ id: String) -> OneSignalApp? { state.withLock { $0.apps[id] } }
    package var allApps: [OneSignalApp] { state.withLock { $0.apps.values.sorted { $0.appId < $1.appId } } }

    /// Registers a subscription; nil when the table is full.
    package func subscribe(appId: String, apnsToken: String, sandbox: Bool, externalId: String?) -> OneSignalSubscription? {
        state.withLock { s in
            guard s.subscriptions.count < Self.maxSubscriptions else { return nil }
            let sub = OneSignalSubscription(id: UUID().uuidString.lowercased(), appId: appId, apnsToken: apnsToken.lowercased(),
                                            environment: sandbox ? "sandbox" : "production", externalId: externalId, badgeCount: 0)
            s.subscriptions[sub.id] = sub
            s.order.append(sub.id)
            return sub
        }
    }

    package func subscription(_ id: String) -> OneSignalSubscription? {
        let id = id.lowercased()
        return all().first { $0.id == id }
    }

    /// Registered subscriptions, then those of virtual apps, each with the badge count kept for it.
    package func all() -> [OneSignalSubscription] {
        let hosted = self.hosted()
        return state.withLock { s in
            (s.order.compactMap { s.subscriptions[$0] } + hosted).map { sub in
                var sub = sub
                sub.badgeCount = s.badges[sub.id] ?? 0
                return sub
            }
        }
    }

    package func subscriptions(of appId: String) -> [OneSignalSubscription] { all().filter { $0.appId == appId } }

    /// The badge a notification sends `id` (`SetTo` the count, `Increase` the kept count plus it, never below 0),
    /// kept at once so concurrent notifications each see the one before.
    package func nextBadge(_ type: String, _ count: Int64, of id: String) -> Int64 {
        state.withLock { s in
            // A count near Int64's ends saturates instead of trapping.
            let (sum, overflow) = (s.badges[id] ?? 0).addingReportingOverflow(count)
            let badge = max(0, type == "SetTo" ? count : overflow ? (count > 0 ? Int64.max : 0) : sum)
            s.badges[id] = badge
            return badge
        }
    }
}
