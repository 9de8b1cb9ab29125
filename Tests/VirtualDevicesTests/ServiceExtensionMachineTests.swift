import APNsEmulator
import Foundation
import OpenSSLSupport
import Testing

@testable import VirtualDevices

@Suite("ServiceExtensionMachine")
struct ServiceExtensionMachineTests {
    static let original = PushContent(payload: Array(#"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1}}"#.utf8))
    static let png = Array(try! Data(contentsOf: AttachmentValidatorTests.fixtures.appendingPathComponent("image.png")))

    static func machine(_ script: ServiceExtensionScript, original: PushContent = original,
                        cached: Bool = false) -> ServiceExtensionMachine {
        ServiceExtensionMachine(script: script, original: original, now: 0,
                                fetch: { $0 == "good" ? .success(png) : .failure(.init(.notFound, "404")) },
                                cached: { _ in cached })
    }

    static func deliver(_ actions: [ServiceExtensionMachine.Action])
        -> (content: PushContent, attachments: [AttachmentRecord], outcome: ServiceExtensionMachine.Outcome, log: [String],
            events: [ExtensionEvent.Kind], failures: [AttachmentFailure])?
    {
        guard case .deliver(let c, let a, let o, let l, let e, let f)? = actions.first else { return nil }
        return (c, a, o, l, e.map(\.event), f)
    }

    @Test func handlerAfterDownloadsDeliversTheEditedContentOnce() throws {
        var m = Self.machine(.init(title: "New", attachments: [.init(identifier: "a", url: "good")], downloadMillis: 2_000))
        #expect(m.dueAt == 2_000)
        #expect(m.advance(to: 1_999).isEmpty)
        let d = try #require(Self.deliver(m.advance(to: 2_000)))
        #expect(d.outcome == .completed)
        #expect(d.content.title == "New")
        #expect(d.attachments.map(\.type) == [.png])
        #expect(m.isFinished)
        #expect(m.advance(to: 60_000).isEmpty, "delivers only once")
    }

    @Test func pastTheBudgetTheBestAttemptIsDeliveredAt29Seconds() throws {
        var m = Self.machine(.init(body: "Edited", attachments: [.init(identifier: "a", url: "good"),
                                                                   .init(identifier: "b", url: "good")],
                                   downloadMillis: 20_000))
        #expect(m.dueAt == 29_000)
        let d = try #require(Self.deliver(m.advance(to: 29_000)))
        #expect(d.outcome == .expiredBestAttempt)
        #expect(d.content.body == "Edited")
        #expect(d.attachments.map(\.identifier) == ["a"], "the second download had not finished")
        #expect(d.log.contains { $0.contains("still downloading") })
    }

    @Test func handlerBetween29And30SecondsLosesToTimeWillExpire() throws {
        var m = Self.machine(.init(title: "Late", processingMillis: 29_500))
        #expect(m.dueAt == 29_000)
        #expect(try #require(Self.deliver(m.advance(to: 29_000))).outcome == .expiredBestAttempt)
        var quiet = Self.machine(.init(title: "Late", processingMillis: 29_500, timeWillExpire: .nothing))
        #expect(try #require(Self.deliver(quiet.advance(to: 29_500))).outcome == .completed)
    }

    @Test func neverCallingTheHandlerShowsTheOriginalAt30Seconds() throws {
        var m = Self.machine(.init(title: "Lost", handler: .never))
        #expect(m.dueAt == 30_000)
        let d = try #require(Self.deliver(m.advance(to: 30_000)))
        #expect(d.outcome == .timedOut)
        #expect(d.content.title == "T")
        #expect(d.attachments.isEmpty)
    }

    @Test func memoryOverrunKillsTheExtension() throws {
        var m = Self.machine(.init(title: "Lost", processingMillis: 100, memoryMB: 60, memoryLimitMB: 50))
        let d = try #require(Self.deliver(m.advance(to: 100)))
        #expect(d.outcome == .killed)
        #expect(d.content.title == "T")
        #expect(d.log.first?.contains("60 MB over its 50 MB limit") == true)
    }

    @Test func cachedDownloadsAreCheaperAndFailedDownloadsAreLogged() throws {
        var cached = Self.machine(.init(attachments: [.init(identifier: "a", url: "good")], downloadMillis: 5_000,
                                        cachedDownloadMillis: 50), cached: true)
        #expect(cached.dueAt == 50)
        var failing = Self.machine(.init(attachments: [.init(identifier: "x", url: "bad")], downloadMillis: 10))
        let d = try #require(Self.deliver(failing.advance(to: 10)))
        #expect(d.attachments.isEmpty)
        #expect(d.log.contains("attachment x failed: 404"))
        _ = cached.advance(to: 50)
    }

    @Test func decryptionOpensAnAESGCMSealedField() throws {
        let key = [UInt8](0..<32)
        let sealed = try AESGCM.seal(Array("hello".utf8), key: key)
        let payload = #"{"aps":{"alert":{"body":"x"},"mutable-content":1},"enc":"\#(Data(sealed).base64EncodedString())"}"#
        let keyHex = key.map { String(format: "%02x", $0) }.joined()
        var m = Self.machine(.init(decrypt: .init(field: "enc", keyHex: keyHex)),
                             original: PushContent(payload: Array(payload.utf8)))
        let d = try #require(Self.deliver(m.advance(to: 0)))
        #expect(d.content.body == "hello")
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: OpenSSLError.self) { try AESGCM.open(tampered, key: key) }
    }

    @Test func eachOutcomeHasItsLifecycleInOrder() throws {
        var done = Self.machine(.init(title: "x", processingMillis: 10))
        #expect(try #require(Self.deliver(done.advance(to: 10))).events == [.didReceive, .contentHandler])
        var expired = Self.machine(.init(title: "x", processingMillis: 40_000))
        #expect(try #require(Self.deliver(expired.advance(to: 29_000))).events
                == [.didReceive, .timeWillExpire, .contentHandler])
        var never = Self.machine(.init(title: "x", handler: .never, timeWillExpire: .nothing))
        #expect(try #require(Self.deliver(never.advance(to: 30_000))).events == [.didReceive, .timeWillExpire, .timedOut])
        var late = Self.machine(.init(title: "x", processingMillis: 29_500, timeWillExpire: .nothing))
        #expect(try #require(Self.deliver(late.advance(to: 29_500))).events
                == [.didReceive, .timeWillExpire, .contentHandler], "expiry called, did nothing; the handler came after")
        var killed = Self.machine(.init(title: "x", memoryMB: 60, memoryLimitMB: 50))
        #expect(try #require(Self.deliver(killed.advance(to: 0))).events == [.didReceive, .killed])
    }

    @Test func attachmentFailuresCarryACode() throws {
        var m = Self.machine(.init(attachments: [.init(identifier: "x", url: "bad"), .init(identifier: "y", url: "good")],
                                   downloadMillis: 20_000))
        let d = try #require(Self.deliver(m.advance(to: 29_000)))
        #expect(d.failures.map(\.code) == [.notFound, .stillDownloading])
        #expect(d.failures.map(\.identifier) == ["x", "y"])
    }

    @Test func fieldsAndTheAttachmentURLComeFromThePayloadOrTheOriginalStays() throws {
        let payload = #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1},"data":{"thread-id":"room-7","n":3},"#
            + #""fcm_options":{"image":"good"}}"#
        var script = ServiceExtensionScript(attachments: [.init(identifier: "img", url: "", urlFrom: "fcm_options.image"),
                                                          .init(identifier: "none", url: "", urlFrom: "data.image")],
                                            downloadMillis: 10)
        script.from = .init(title: "data.missing", body: "data.n", threadId: "data.thread-id")
        var m = Self.machine(script, original: PushContent(payload: Array(payload.utf8)))
        let d = try #require(Self.deliver(m.advance(to: 10)))
        #expect(d.content.threadId == "room-7")
        #expect(d.content.body == "3", "a number reads as its JSON text")
        #expect(d.content.title == "T", "nothing at the path: the original stays")
        #expect(d.log.contains("title from data.missing: not in the payload, the original kept"))
        #expect(d.attachments.map(\.url) == ["good"])
        #expect(d.failures.map(\.code) == [.noURL])
    }
}
