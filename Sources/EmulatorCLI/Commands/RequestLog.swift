import APNsEmulator
import Foundation

/// `serve --request-log` (or `--log-level debug`): one line per APNs request, as the journal recorded it, in text
/// or JSON. It reads the journal five times a second: the requests themselves do nothing more for it, but each
/// read copies up to 2,000 entries and prints a line for each, so it is for watching a sender, not for load tests.
/// Entries it did not see (a burst beyond one read, a cleared or reset journal) are reported as a count.
struct RequestLog: Sendable {
    enum Format: String, Sendable {
        case text, json
    }

    let format: Format

    /// Lines for `entries` (oldest first) after the entry numbered `lastId`.
    func lines(_ entries: [JournalEntry], after lastId: Int64) -> [String] {
        var out: [String] = []
        var previous = lastId
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for e in entries {
            if e.id > previous + 1 { out.append(skipped(e.id - previous - 1)) }
            out.append(line(e, formatter))
            previous = e.id
        }
        return out
    }

    private func line(_ e: JournalEntry, _ formatter: ISO8601DateFormatter) -> String {
        let time = formatter.string(from: Date(timeIntervalSince1970: Double(e.receivedAt) / 1000))
        let ms = String(format: "%.2f", Double(e.durationMicros) / 1000)
        switch format {
        case .text:
            let token = e.token.map { String($0.prefix(8)) + "…" } ?? "-"
            return "\(time) \(e.environment.rawValue) \(e.status) \(e.reason ?? "-") \(e.method) \(e.pushType ?? "-") "
                + "\(e.topic ?? "-") \(token) apns-id=\(e.apnsId) \(ms) ms"
        case .json:
            var o: [String: Any] = ["time": time, "environment": e.environment.rawValue, "status": e.status,
                                    "method": e.method, "path": e.path, "apnsId": e.apnsId,
                                    "durationMs": Double(e.durationMicros) / 1000, "journalId": e.id]
            if let v = e.reason { o["reason"] = v }
            if let v = e.pushType { o["pushType"] = v }
            if let v = e.topic { o["topic"] = v }
            if let v = e.token { o["token"] = v }
            let data = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    private func skipped(_ count: Int64) -> String {
        switch format {
        case .text: return "… \(count) request\(count == 1 ? "" : "s") not logged (no longer in the journal when read)"
        case .json: return #"{"notLogged":\#(count)}"#
        }
    }

    /// Prints new journal entries every 200 ms until cancelled.
    func start(_ journal: Journal, context: CommandContext) -> Task<Void, Never> {
        Task {
            var last = journal.query(JournalFilter(limit: 1)).last?.id ?? 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))
                let entries = journal.query(JournalFilter(afterId: last, limit: 2_000))
                guard let newest = entries.last?.id else { continue }
                for l in lines(entries, after: last) { context.output.writeLine(l) }
                last = newest
            }
        }
    }
}

