import Testing

@testable import VirtualDevices

@Suite("ContentExtensionSession")
struct ContentExtensionSessionTests {
    @Test func aSessionDrawsOrFallsBackAndClosesOnce() {
        let drawn = ContentExtensionSession.expand("n1", drawnByExtension: true, settings: .init(), at: 5)
        #expect(drawn.interface == .custom && drawn.events.map(\.event) == [.didReceive])
        let heavy = ContentExtensionSession.expand("n1", drawnByExtension: true,
                                                   settings: .init(memoryMB: 200, memoryLimitMB: 120), at: 5)
        #expect(heavy.interface == .default && heavy.events.map(\.event) == [.didReceive, .killed])
        var plain = ContentExtensionSession.expand("n2", drawnByExtension: false, settings: .init(), at: 5)
        #expect(plain.interface == .default && plain.events.isEmpty)
        plain.close(at: 6)
        plain.close(at: 7)
        #expect(plain.events.map(\.event) == [.closed] && !plain.isOpen)
    }
}
