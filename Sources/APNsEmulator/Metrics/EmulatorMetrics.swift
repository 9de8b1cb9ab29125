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
    package static let latencyBoundsMicros: [UInt64] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000,
                                               250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000]

    /// Where each counter sits in the table. Kept in the instance rather than as static lets: each static read
    /// on the push path was a `swift_once` check.
    private struct Slots {
        let responses = 0
        let byType = 1 + reasons.count
        let latencyBuckets: Int
        let latencySum: Int
        let latencyCount: Int
        let openConnections: Int
        let connectionsTotal: Int
        let openStreams: Int
        let streamsHighWater: Int
        let tokenRefreshes: Int
        /// Successes other than 200: channel management answers 201 (created) and 204 (deleted).
        let created: Int
        let noContent: Int
        let count: Int
        /// Environments per push type (`byType` rows).
        let environments = EmulatorMetrics.environments.count

        init() {
            latencyBuckets = byType + (pushTypes.count + 1) * environments
            latencySum = latencyBuckets + latencyBoundsMicros.count + 1
            latencyCount = latencySum + 1
            openConnections = latencyCount + 1
            connectionsTotal = openConnections + 1
            openStreams = connectionsTotal + 1
            streamsHighWater = openStreams + 1
            tokenRefreshes = streamsHighWater + 1
            created = tokenRefreshes + 1
            noContent = created + 1
            count = noContent + 1
        }
    }

    private let slot = Slots()
    private let table: CounterTable

    public init() { table = CounterTable(count: slot.count) }

    // MARK: Recording

    /// One answered APNs request, from any thread (counted atomically in the shared row).
    public func response(reason: APNsReason?, status: Int = 200, pushType: PushType?, environment: APNsEnvironment,
                         micros: UInt64) {
        record(reason: reason, status: status, pushType: pushType, environment: environment, micros: micros, row: nil)
    }

    /// One answered APNs request, counted in event loop `loop`'s row: call it on that loop's thread only (a row
    /// has one writer; the handler asserts it). An index rather than the loop object: passing the object cost a
    /// retain and a release per push.
    @inline(__always)
    package func response(reason: APNsReason?, status: Int = 200, pushType: PushType?, environment: APNsEnvironment,
                          micros: UInt64, loop: Int) {
        record(reason: reason, status: status, pushType: pushType, environment: environment, micros: micros, row: loop)
    }

    @inline(__always)
    private func record(reason: APNsReason?, status: Int, pushType: PushType?, environment: APNsEnvironment,
                        micros: UInt64, row loop: Int?) {
        if let reason {
            table.add(slot.responses + 1 + Self.reasonIndex(reason), loop: loop)
        } else {
            table.add(status == 201 ? slot.created : status == 204 ? slot.noContent : slot.responses, loop: loop)
        }
        let type = pushType.map { Self.pushTypeIndex($0) } ?? Self.pushTypes.count
        table.add(slot.byType + type * slot.environments + (environment == .production ? 0 : 1), loop: loop)
        table.add(slot.latencyBuckets + Self.latencyBucket(micros), loop: loop)
        table.add(slot.latencySum, micros, loop: loop)
        table.add(slot.latencyCount, loop: loop)
    }

    public func connectionOpened() {
        table.add(slot.openConnections)
        table.add(slot.connectionsTotal)
    }

    public func connectionClosed() { table.subtract(slot.openConnections) }

    /// A request stream began, on event loop `loop`'s thread (as for `response(…loop:)`).
    @inline(__always) package func streamOpened(concurrentOnConnection: Int, loop: Int) {
        table.add(slot.openStreams, loop: loop)
        table.max(slot.streamsHighWater, UInt64(concurrentOnConnection), loop: loop)
    }

    /// A request stream was answered, on event loop `loop`'s thread (any row: the open count is the rows' sum).
    @inline(__always) package func streamClosed(loop: Int) { table.subtract(slot.openStreams, loop: loop) }

    public func tokenRefreshed() { table.add(slot.tokenRefreshes) }

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
        var responses: [String: UInt64] = ["200": table.value(slot.responses)]
        if table.value(slot.created) > 0 { responses["201"] = table.value(slot.created) }
        if table.value(slot.noContent) > 0 { responses["204"] = table.value(slot.noContent) }
        for (i, r) in Self.reasons.enumerated() {
            let v = table.value(slot.responses + 1 + i)
            if v > 0 { responses["\(r.status) \(r.rawValue)"] = v }
        }
        var byType: [String: UInt64] = [:]
        for t in 0...Self.pushTypes.count {
            for (e, env) in Self.environments.enumerated() {
                let v = table.value(slot.byType + t * Self.environments.count + e)
                let name = t < Self.pushTypes.count ? Self.pushTypes[t].rawValue : "unknown"
                if v > 0 { byType["\(name) \(env.rawValue)"] = v }
            }
        }
        var buckets: [(UInt64?, UInt64)] = []
        for i in 0...Self.latencyBoundsMicros.count {
            buckets.append((i < Self.latencyBoundsMicros.count ? Self.latencyBoundsMicros[i] : nil,
                            table.value(slot.latencyBuckets + i)))
        }
        return Snapshot(
            responses: responses, byPushTypeAndEnvironment: byType, latencyBuckets: buckets,
            latencySumMicros: table.value(slot.latencySum), latencyCount: table.value(slot.latencyCount),
            openConnections: Int64(bitPattern: table.value(slot.openConnections)),
            connectionsTotal: table.value(slot.connectionsTotal),
            openStreams: Int64(bitPattern: table.value(slot.openStreams)),
            streamsPerConnectionHighWater: table.maximum(slot.streamsHighWater),
            tokenRefreshes: table.value(slot.tokenRefreshes))
    }

    /// The histogram bucket of a latency: the first bound at or above it (`latencyBoundsMicros`), or the last,
    /// unbounded bucket. The bounds as literals: reading the static array was a `swift_once` check, a retain and
    /// a release per push (a test holds the two in step).
    @inline(__always)
    static func latencyBucket(_ micros: UInt64) -> Int {
        switch micros {
        case ...100: 0
        case ...250: 1
        case ...500: 2
        case ...1_000: 3
        case ...2_500: 4
        case ...5_000: 5
        case ...10_000: 6
        case ...25_000: 7
        case ...50_000: 8
        case ...100_000: 9
        case ...250_000: 10
        case ...500_000: 11
        case ...1_000_000: 12
        case ...2_500_000: 13
        case ...5_000_000: 14
        case ...10_000_000: 15
        default: 16
        }
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
