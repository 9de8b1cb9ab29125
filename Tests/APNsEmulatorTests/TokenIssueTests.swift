import Foundation
import StateStore
import Testing

@testable import APNsEmulator

/// Tokens the registry makes up: lowercase hex of the kind's length, the first byte as asked, none alike.
@Suite("Token issue")
struct TokenIssueTests {
    @Test func issuedTokensHaveTheirKindsLengthTheFirstByteAskedForAndDiffer() throws {
        let registry = TokenRegistry()
        var seen = Set<String>()
        for kind in [DeviceTokenKind.app, .liveActivity] {
            for _ in 0..<200 {
                // Only first bytes below 16: a token whose first hex digit is 0 (what a shard choice asks for).
                let record = try registry.issue(bundleId: "com.example.app", environment: .production, kind: kind, now: 0,
                                                firstByte: { $0 < 16 })
                #expect(record.token.utf8.count == 2 * kind.byteLength)
                #expect(record.token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "\(record.token)")
                #expect(record.token.hasPrefix("0"))
                seen.insert(record.token)
            }
        }
        #expect(seen.count == 400)
        // No byte position is the same in every token: all eight bytes of each draw are used.
        let tokens = seen.filter { $0.utf8.count == 64 }.map { Array($0.utf8) }
        for position in stride(from: 2, to: 64, by: 2) {
            #expect(Set(tokens.map { [$0[position], $0[position + 1]] }).count > 1, "byte \(position / 2) never changes")
        }
    }
}
