import APNsEmulator
import APNsProtocol
import Foundation
import OpenSSLSupport
import WireBytes

/// One run of a Notification Service Extension on a push, on the virtual clock.
///
/// ```
///              start(t0)
///   ─────────────────────────► running(best attempt, timeline)
///                                 │ advance(now ≥ handler time ≤ t0+30 s)   → completed(content)
///                                 │ advance(now ≥ kill time)                → killed (original shown)
///                                 │ advance(now ≥ t0+29 s), expiry delivers → expired(best attempt)
///                                 └ advance(now ≥ t0+30 s)                  → timedOut (original shown)
/// ```
/// ### Implementation
/// The script is deterministic, so `start` lays out the timeline: text changes and decryption at t0,
/// each download finishing in turn (a cached URL costs `cachedDownloadMillis`), the handler after the
/// downloads and `processingMillis`, a memory overrun killing the process once processing starts. The
/// best attempt at any moment is what had finished by then. `advance` answers `.deliver` once, when the
/// first decisive moment has passed; afterwards it answers nothing.
struct ServiceExtensionMachine: Sendable {
    /// Apple's budget, and when `serviceExtensionTimeWillExpire` is called (one second before it).
    static let budgetMillis: Millis = 30_000
    static let willExpireMillis: Millis = 29_000

    enum Outcome: Sendable, Equatable {
        case completed
        case expiredBestAttempt
        case timedOut
        case killed
    }

    enum Action: Sendable, Equatable {
        /// Display `content` (the extension's result, or the original) with `attachments`.
        case deliver(content: PushContent, attachments: [AttachmentRecord], outcome: Outcome, log: [String],
                     events: [ExtensionEvent], failures: [AttachmentFailure])
    }

    /// A change that lands at a moment of the run.
    private struct Change: Sendable {
        var at: Millis
        var attachment: AttachmentRecord?
        var failure: AttachmentFailure?
        var note: String
    }

    private enum State: Sendable {
        case running(started: Millis, original: PushContent, edited: PushContent, changes: [Change],
                     decisive: (at: Millis, outcome: Outcome), log: [String], handlerAt: Millis?,
                     willExpire: Bool)
        case finished(Outcome)
    }

    private var state: State

    /// Starts the extension on `original` at `now`; `fetch` loads an attachment URL's bytes (or says why
    /// it cannot) and `cached` says whether the URL is in the container's cache already.
    init(script: ServiceExtensionScript, original: PushContent, now: Millis,
         fetch: (String) -> Result<[UInt8], AttachmentValidator.Refused>, cached: (String) -> Bool) {
        var edited = original
        var log: [String] = []
        if let v = script.title { edited.title = v; log.append("title set") }
        if let v = script.subtitle { edited.subtitle = v; log.append("subtitle set") }
        if let v = script.body { edited.body = v; log.append("body set") }
        if let v = script.threadId { edited.threadId = v; log.append("thread id set to \(v)") }
        if let v = script.category { edited.category = v; log.append("category set to \(v)") }
        if let v = script.badge { edited.badge = v; log.append("badge set to \(v)") }
        if let v = script.sound { edited.sound = v; log.append("sound set") }
        if let d = script.decrypt { log.append(Self.decrypt(d, original: original, into: &edited)) }
        let payload = script.from.isEmpty && !script.attachments.contains(where: { $0.urlFrom != nil })
            ? nil : PayloadPath.object(original.userInfoJson)
        func take(_ path: String?, _ name: String, _ set: (String) -> Void) {
            guard let path else { return }
            if let v = PayloadPath.text(at: path, in: payload) {
                set(v)
                log.append("\(name) from \(path)")
            } else {
                log.append("\(name) from \(path): not in the payload, the original kept")
            }
        }
        take(script.from.title, "title") { edited.title = $0 }
        take(script.from.subtitle, "subtitle") { edited.subtitle = $0 }
        take(script.from.body, "body") { edited.body = $0 }
        take(script.from.threadId, "thread id") { edited.threadId = $0 }
        take(script.from.category, "category") { edited.category = $0 }

        var changes: [Change] = []
        var t = now
        for request in script.attachments {
            var url = request.url
            if let path = request.urlFrom {
                guard let found = PayloadPath.text(at: path, in: payload) else {
                    let reason = "no URL at \(path) in the payload"
                    changes.append(Change(at: t, failure: AttachmentFailure(
                        identifier: request.identifier, url: "", code: .noURL, reason: reason),
                        note: "attachment \(request.identifier) failed: \(reason)"))
                    continue
                }
                url = found
            }
            t += cached(url) ? script.cachedDownloadMillis : script.downloadMillis
            switch fetch(url).flatMap({ AttachmentValidator.validate($0, hint: request.typeHint) }) {
            case .success(let a):
                changes.append(Change(at: t, attachment: AttachmentRecord(
                    identifier: request.identifier, url: url, type: a.type, bytes: a.bytes,
                    durationSeconds: a.duration), note: "attachment \(request.identifier) (\(a.type.rawValue)) added"))
            case .failure(let refused):
                changes.append(Change(at: t, failure: AttachmentFailure(
                    identifier: request.identifier, url: url, code: refused.code, reason: refused.reason),
                    note: "attachment \(request.identifier) failed: \(refused.reason)"))
            }
        }
        let handlerAt = t + script.processingMillis
        let decisive: (Millis, Outcome)
        if script.memoryMB > script.memoryLimitMB {
            decisive = (now + script.processingMillis, .killed)
            log.append("used \(script.memoryMB) MB over its \(script.memoryLimitMB) MB limit and was killed")
        } else if script.handler == .calls && handlerAt - now <= (script.timeWillExpire == .deliversBestAttempt
                                                                      ? Self.willExpireMillis : Self.budgetMillis) {
            // With a timeWillExpire that delivers, the 29 s call comes first for a handler later than that.
            decisive = (handlerAt, .completed)
        } else if script.handler != .never && script.timeWillExpire == .deliversBestAttempt {
            decisive = (now + Self.willExpireMillis, .expiredBestAttempt)
        } else {
            decisive = (now + Self.budgetMillis, .timedOut)
        }
        state = .running(started: now, original: original, edited: edited, changes: changes,
                         decisive: decisive, log: log,
                         handlerAt: script.handler == .never || script.memoryMB > script.memoryLimitMB ? nil : handlerAt,
                         willExpire: script.memoryMB <= script.memoryLimitMB
                             && !(decisive.1 == .completed && handlerAt - now < Self.willExpireMillis))
    }

    /// When the run next needs the clock (nil once finished).
    var dueAt: Millis? {
        if case .running(_, _, _, _, let decisive, _, _, _) = state { return decisive.at }
        return nil
    }

    var isFinished: Bool { dueAt == nil }

    /// Time moved to `now`: delivers once the decisive moment has passed.
    mutating func advance(to now: Millis) -> [Action] {
        guard case .running(let started, let original, let edited, let changes, let decisive, let log, let handlerAt,
                            let willExpire) = state,
              now >= decisive.at else { return [] }
        state = .finished(decisive.outcome)
        var events = [ExtensionEvent(at: started, event: .didReceive)]
        let expiresAt = started + Self.willExpireMillis
        if willExpire && decisive.at >= expiresAt { events.append(ExtensionEvent(at: expiresAt, event: .timeWillExpire)) }
        switch decisive.outcome {
        case .completed: events.append(ExtensionEvent(at: handlerAt ?? decisive.at, event: .contentHandler))
        case .expiredBestAttempt: events.append(ExtensionEvent(at: decisive.at, event: .contentHandler))
        case .timedOut: events.append(ExtensionEvent(at: decisive.at, event: .timedOut))
        case .killed: events.append(ExtensionEvent(at: decisive.at, event: .killed))
        }
        let done = changes.filter { $0.at <= decisive.at }
        var failures = done.compactMap(\.failure)
        // A download the end cut short is "still downloading", whatever it would have come to.
        for late in changes where late.at > decisive.at {
            guard let (identifier, url) = late.attachment.map({ ($0.identifier, $0.url) })
                ?? late.failure.map({ ($0.identifier, $0.url) }) else { continue }
            failures.append(AttachmentFailure(identifier: identifier, url: url, code: .stillDownloading,
                                              reason: "still downloading when the extension ended"))
        }
        let elapsed = String(format: "%.1f s", Double(decisive.at - started) / 1000)
        switch decisive.outcome {
        case .completed, .expiredBestAttempt:
            let notes = log + done.map(\.note)
                + changes.filter { $0.at > decisive.at }.map { "attachment still downloading at the deadline: \($0.note)" }
            let head = decisive.outcome == .completed
                ? "the service extension completed in \(elapsed)"
                : "the service extension ran out of time; serviceExtensionTimeWillExpire delivered its best attempt at \(elapsed)"
            return [.deliver(content: edited, attachments: done.compactMap(\.attachment), outcome: decisive.outcome,
                             log: [head] + notes, events: events, failures: failures)]
        case .timedOut:
            return [.deliver(content: original, attachments: [], outcome: .timedOut,
                             log: ["the service extension never called its content handler: the original content is shown after \(elapsed)"],
                             events: events, failures: [])]
        case .killed:
            return [.deliver(content: original, attachments: [], outcome: .killed,
                             log: ["the service extension " + (log.last ?? "was killed") + ": the original content is shown"],
                             events: events, failures: [])]
        }
    }

    /// Decrypts the sealed payload field into the content; the line for the log either way.
    private static func decrypt(_ d: ServiceExtensionScript.Decrypt, original: PushContent, into edited: inout PushContent)
        -> String
    {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(original.userInfoJson.utf8))) as? [String: Any],
              let sealedText = object[d.field] as? String, let sealed = Data(base64Encoded: sealedText) else {
            return "decryption failed: no base64 field '\(d.field)' in the payload"
        }
        guard let key = Hex.decode(d.keyHex), let plain = try? AESGCM.open(Array(sealed), key: key) else {
            return "decryption failed: wrong key or altered data"
        }
        let text = String(decoding: plain, as: UTF8.self)
        switch d.into {
        case "title": edited.title = text
        case "subtitle": edited.subtitle = text
        default: edited.body = text
        }
        return "decrypted '\(d.field)' into \(d.into)"
    }
}
