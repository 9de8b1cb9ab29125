import APNsProtocol
import Foundation
import Synchronization

/// Broadcast channels (iOS 18 Live Activities) per app and environment, and which apps have the broadcast
/// capability switched off.
public final class ChannelRegistry: ChannelLookup {
    private struct State {
        var channels: [String: ChannelInfo] = [:]
        var disabledApps: Set<String> = []
    }

    private let state = Mutex(State())
    /// Apple caps channels per app; beyond this, creating one answers CannotCreateChannelConfig.
    public let maximumChannelsPerApp: Int

    /// Told of every channel this emulator creates or deletes (nil: deleted), after the change: with a shared
    /// store, the replication thread copies it there. Called on the connection's event loop, so it must not block.
    private let changed: (@Sendable (String, ChannelInfo?) -> Void)?

    public init(maximumChannelsPerApp: Int = 10_000, changed: (@Sendable (String, ChannelInfo?) -> Void)? = nil) {
        self.maximumChannelsPerApp = maximumChannelsPerApp
        self.changed = changed
    }

    public func channel(_ id: String) -> ChannelInfo? { state.withLock { $0.channels[id] } }

    public func broadcastEnabled(bundleId: String) -> Bool { state.withLock { !$0.disabledApps.contains(bundleId) } }

    /// Switches an app's broadcast capability (FeatureNotEnabled when off).
    public func setBroadcastEnabled(_ enabled: Bool, bundleId: String) {
        state.withLock { s in
            if enabled { s.disabledApps.remove(bundleId) } else { s.disabledApps.insert(bundleId) }
        }
    }

    /// Creates a channel and returns its id (base64 of 16 random bytes, like Apple's), or nil when the app
    /// already has the maximum number of channels.
    public func create(bundleId: String, environment: APNsEnvironment, messageStoragePolicy: Int) -> String? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = rng.next() }
        let id = Data(bytes).base64EncodedString()
        let info = ChannelInfo(bundleId: bundleId, environment: environment, messageStoragePolicy: messageStoragePolicy)
        let created = state.withLock { s -> String? in
            let count = s.channels.values.filter { $0.bundleId == bundleId && $0.environment == environment }.count
            guard count < maximumChannelsPerApp else { return nil }
            s.channels[id] = info
            return id
        }
        if let created { changed?(created, info) }
        return created
    }

    @discardableResult
    public func delete(_ id: String) -> Bool {
        let deleted = state.withLock { $0.channels.removeValue(forKey: id) != nil }
        if deleted { changed?(id, nil) }
        return deleted
    }

    /// Another replica's channel, created (`info`) or deleted (nil): memory only.
    func adopt(_ id: String, _ info: ChannelInfo?) {
        state.withLock { s in
            if let info { s.channels[id] = info } else { s.channels.removeValue(forKey: id) }
        }
    }

    /// Replaces every channel (a replica's start or reload from the shared store): memory only.
    func restore(_ channels: [String: ChannelInfo]) {
        state.withLock { $0.channels = channels }
    }

    /// Channel ids of an app in an environment, sorted.
    public func list(bundleId: String, environment: APNsEnvironment) -> [String] {
        state.withLock { s in
            s.channels.filter { $0.value.bundleId == bundleId && $0.value.environment == environment }.map(\.key).sorted()
        }
    }

    func removeAll() { state.withLock { $0 = State() } }
}
