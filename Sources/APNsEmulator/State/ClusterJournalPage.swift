import Foundation
import StateStore

/// One entry of the cluster journal: where it is, which replica answered it, and the entry as that replica's
/// `GET /_emulator/journal` shows it.
public struct ClusterJournalEntry: Sendable, Encodable {
    /// `<batch>/<index>`: the batch's place in the store and the entry's within it (pass as `after`).
    public var position: String
    public var replica: String
    /// Its id in that replica's journal.
    public var localId: Int64
    public var entry: JournalEntry
}

/// A page of the cluster journal, oldest first.
public struct ClusterJournalPage: Sendable, Encodable {
    public var entries: [ClusterJournalEntry]
    /// Pass as `after` for the next page; nil when this one is empty. The position of the last entry read,
    /// decodable or not, so paging never stalls on a batch another build wrote.
    public var next: String?
    /// Entries on this page another build wrote, in a layout this one does not read (left out).
    public var unreadable: Int
}

extension ClusterJournalPage {
    /// Whether `text` is a position a page gave (`<ms>-<seq>/<index>`).
    public static func isPosition(_ text: String) -> Bool { parse(text) != nil }

    static func parse(_ text: String) -> (batch: String, index: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[1]), index >= 0 else { return nil }
        let id = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard id.count == 2, id.allSatisfy({ !$0.isEmpty && $0.count <= 20 && $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { return nil }
        return (String(parts[0]), index)
    }

    /// Reads up to `limit` entries after `position` (nil: from the oldest kept).
    static func read(_ store: any SharedStateStore, after position: String?, limit: Int) throws -> ClusterJournalPage {
        var page = ClusterJournalPage(entries: [], next: nil, unreadable: 0)
        let decoder = JSONDecoder()
        var full: Bool { page.entries.count + page.unreadable >= limit }

        /// Adds the batch's entries past `skip`; false once the page is full.
        func take(_ batch: SharedJournalBatch, after skip: Int) -> Bool {
            guard let id = batch.position else { return true }
            let readable = batch.format == ClusterReplication.journalFormat
            let entries = readable
                ? Journal.entries(copied: batch.entries,
                                  aside: (try? decoder.decode([JournalEntry].self, from: Data(batch.aside))) ?? [])
                : []
            for index in 0..<batch.count where index > skip {
                if full { return false }
                page.next = "\(id)/\(index)"
                if readable, index < entries.count {
                    page.entries.append(ClusterJournalEntry(position: "\(id)/\(index)", replica: batch.replica,
                                                            localId: entries[index].id, entry: entries[index]))
                } else {
                    page.unreadable += 1
                }
            }
            return !full
        }

        var cursor = "-"
        if let start = position.flatMap(parse) {
            // The batch holding `after` may have more entries past it.
            if let batch = try store.journalBatches(from: start.batch, count: 1).first, batch.position == start.batch {
                guard take(batch, after: start.index) else { return page }
            }
            cursor = "(" + start.batch
        }
        while true {
            let batches = try store.journalBatches(from: cursor, count: 16)
            for batch in batches {
                guard take(batch, after: -1) else { return page }
                if let id = batch.position { cursor = "(" + id }
            }
            if batches.count < 16 { return page }
        }
    }
}
