import APNsProtocol
import Dispatch

/// The emulator's live counters: what `/metrics` (Prometheus) and `/_emulator/stats` report.
///
/// ### Cost on the hot path
/// A push bumps eight counters in one `CounterTable` (status and reason, push type and environment, a latency
/// bucket, the latency sum and count, open streams up and down, the streams high-water mark), in its event
/// loop's row: a plain load and store each, no lock, no locked instruction, no allocation.
public final class EmulatorMetrics: Sendable {
    /// Response classes: index 0 is 200, then one per `APNsReason` in `allCases` order.
    static let reasons = APNsReason.allCases
    /// Push types, then "unknown" (a request refused before its push type was read).
    static let pushTypes = PushType.allCases
    static let environments = APNsEnvironment.allCases
    /// Upper bounds of the latency histogram, in microseconds (Prometheus reports them in seconds).
    static let latencyBoundsMicros: [UInt64] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000,
                                               250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000]

    private enum Slot {
        static let responses = 0
        static let byType = responses + 1 + reasons.count
        static let latencyBuckets = byType + (pushTypes.count + 1) * environments.count
        static let latencySum = latencyBuckets + latencyBoundsMicros.count + 1
        static let latencyCount = latencySum + 1
        static let openConnections = latencyCount + 1
        static let connectionsTotal = openConnections + 1
        static let openStreams = connectionsTotal + 1
        static let streamsHighWater = openStreams + 1
        static let tokenRefreshes = streamsHighWater + 1
        /// Successes other than 200: channel management answers 201 (created) and 204 (deleted).
        static let created = tokenRefreshes + 1
        static let noContent = created + 1
        static let count = noContent + 1
    }

    private let table = CounterTable(count: Slot.count)

    public init() {}

    // MARK: Recording (any thread)

    /// One answered APNs request.
    /// - Parameter loop: The index of the event loop calling, which must be the caller's thread (nil: any thread).
    @inline(__always)
    public func response(reason: APNsReason?, status: Int = 200, pushType: PushType?, environment: APNsEnvironment,
                         micros: UInt64, loop: Int? = nil) {
        if let reason {
            table.add(Slot.responses + 1 + Self.reasonIndex(reason), loop: loop)
        } else {
            table.add(status == 201 ? Slot.created : status == 204 ? Slot.noContent : Slot.responses, loop: loop)
        }
        let type = pushType.map { Self.pushTypeIndex($0) } ?? Self.pushTypes.count
        table.add(Slot.byType + type * Self.environments.count + (environment == .production ? 0 : 1), loop: loop)
        var bucket = Self.latencyBoundsMicros.count
        for (i, bound) in Self.latencyBoundsMicros.enumerated() where micros <= bound {
            bucket = i
            break
        }
        table.add(Slot.latencyBuckets + bucket, loop: loop)
        table.add(Slot.latencySum, micros, loop: loop)
        table.add(Slot.latencyCount, loop: loop)
    }

    public func connectionOpened() {
        table.add(Slot.openConnections)
        table.add(Slot.connectionsTotal)
    }

    public func connectionClosed() { table.subtract(Slot.openConnections) }

    /// - Parameter loop: As for `response`.
    @inline(__always) public func streamOpened(concurrentOnConnection: Int, loop: Int? = nil) {
        table.add(Slot.openStreams, loop: loop)
        table.max(Slot.streamsHighWater, UInt64(concurrentOnConnection), loop: loop)
    }

    /// - Parameter loop: As for `response` (any row: the open count is the rows' sum).
    @inline(__always) public func streamClosed(loop: Int? = nil) { table.subtract(Slot.openStreams, loop: loop) }

    public func tokenRefreshed() { table.add(Slot.tokenRefreshes) }

    // MARK: Reading

    public struct Snapshot: Sendable, Equatable {
        public var responses: [String: UInt64]
        public var byPushTypeAndEnvironment: [String: UInt64]
        public var latencyBuckets: [(boundMicros: UInt64?, count: UInt64)]
        public var latencySumMicros: UInt64
        public var latencyCount: UInt64
        public var openConnections: Int64
        public var connectionsTotal: UInt64
        public var openStreams: Int64
        public var streamsPerConnectionHighWater: UInt64
        public var tokenRefreshes: UInt64

        /// Every answer counted.
        public var answered: UInt64 { responses.values.reduce(0, +) }
        /// The 2xx answers (200, and 201/204 for channel management).
        public var succeeded: UInt64 { responses.filter { $0.key.hasPrefix("2") }.values.reduce(0, +) }

        public static func == (a: Snapshot, b: Snapshot) -> Bool {
            a.responses == b.responses && a.latencyCount == b.latencyCount && a.openConnections == b.openConnections
        }
    }

    public func snapshot() -> Snapshot {
        var responses: [String: UInt64] = ["200": table.value(Slot.responses)]
        if table.value(Slot.created) > 0 { responses["201"] = table.value(Slot.created) }
        if table.value(Slot.noContent) > 0 { responses["204"] = table.value(Slot.noContent) }
        for (i, r) in Self.reasons.enumerated() {
            let v = table.value(Slot.responses + 1 + i)
            if v > 0 { responses["\(r.status) \(r.rawValue)"] = v }
        }
        var byType: [String: UInt64] = [:]
        for t in 0...Self.pushTypes.count {
            for (e, env) in Self.environments.enumerated() {
                let v = table.value(Slot.byType + t * Self.environments.count + e)
                let name = t < Self.pushTypes.count ? Self.pushTypes[t].rawValue : "unknown"
                if v > 0 { byType["\(name) \(env.rawValue)"] = v }
            }
        }
        var buckets: [(UInt64?, UInt64)] = []
        for i in 0...Self.latencyBoundsMicros.count {
            buckets.append((i < Self.latencyBoundsMicros.count ? Self.latencyBoundsMicros[i] : nil,
                            table.value(Slot.latencyBuckets + i)))
        }
        return Snapshot(
            responses: responses, byPushTypeAndEnvironment: byType, latencyBuckets: buckets,
            latencySumMicros: table.value(Slot.latencySum), latencyCount: table.value(Slot.latencyCount),
            openConnections: Int64(bitPattern: table.value(Slot.openConnections)),
            connectionsTotal: table.value(Slot.connectionsTotal),
            openStreams: Int64(bitPattern: table.value(Slot.openStreams)),
            streamsPerConnectionHighWater: table.maximum(Slot.streamsHighWater),
            tokenRefreshes: table.value(Slot.tokenRefreshes))
    }

    private static let reasonIndexes: [APNsReason: Int] = Dictionary(uniqueKeysWithValues: reasons.enumerated().map { ($1, $0) })

    @inline(__always) static func reasonIndex(_ r: APNsReason) -> Int { reasonIndexes[r] ?? 0 }
    /// A switch, not a dictionary: a raw-value enum hashes its string, which every push would pay.
    @inline(__always) static func pushTypeIndex(_ t: PushType) -> Int {
        switch t {
        case .alert: return 0
        case .background: return 1
        case .location: return 2
        case .voip: return 3
        case .complication: return 4
        case .fileprovider: return 5
        case .mdm: return 6
        case .liveactivity: return 7
        case .pushtotalk: return 8
        case .widgets: return 9
        case .controls: return 10
        }
    }
}
