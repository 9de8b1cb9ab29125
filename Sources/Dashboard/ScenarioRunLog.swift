import Synchronization

/// The scenario runs `apns-emulator test --emulator` reported to this emulator, newest last, as their JSON. Kept
/// across `reset` (the runner resets the emulator before each scenario), bounded in count and size.
final class ScenarioRunLog: Sendable {
    static let capacity = 200
    static let maxRecordBytes = 256 * 1024
    /// All runs together; the oldest go first past it.
    static let maxTotalBytes = 4 * 1024 * 1024
    private let runs = Mutex<[[UInt8]]>([])

    func append(_ record: [UInt8]) {
        runs.withLock { r in
            r.append(record)
            var total = r.reduce(0) { $0 + $1.count }
            while r.count > 1, r.count > Self.capacity || total > Self.maxTotalBytes { total -= r.removeFirst().count }
        }
    }

    /// Forgets every run (reset keeps them; this is how a user starts a fresh list).
    func removeAll() { runs.withLock { $0.removeAll() } }

    /// `{"runs": [...]}`, oldest first.
    var json: [UInt8] {
        let all = runs.withLock { $0 }
        var out = Array(#"{"runs":["#.utf8)
        for (i, record) in all.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += record
        }
        out += Array("]}".utf8)
        return out
    }
}
