import Foundation
import APNsProtocol
import Testing

@testable import FuzzTargets

/// Every seed and every crash input `make fuzz` kept goes through its target again: a crash fixed once stays
/// fixed, and the seeds stay inputs the targets accept without trapping.
@Suite("Fuzz inputs replayed")
struct FuzzReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let certificates = root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path

    static func inputs(_ folder: String, _ target: FuzzTarget) -> [URL] {
        let dir = root.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndKeptCrashRunsThroughItsTarget(_ target: FuzzTarget) throws {
        let seeds = Self.inputs("Corpus", target)
        #expect(seeds.count >= 3, "\(target.rawValue) needs a seed corpus")
        for file in seeds + Self.inputs("Regressions", target) {
            let bytes = try [UInt8](Data(contentsOf: file))
            bytes.withUnsafeBytes { target.run($0, certificates: Self.certificates) }
        }
    }

    @Test func theValidatorSeedsReachPastAuthentication() throws {
        let harness = ValidatorHarness.shared(Self.certificates)
        func reason(_ seed: String) throws -> APNsReason? {
            let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("Corpus/validator/" + seed)))
            return bytes.withUnsafeBytes { harness.run($0) }
        }
        #expect(try reason("accepted-alert") == nil)
        #expect(try reason("voip") == nil)
        #expect(try reason("background-collapse") == nil)
        let refused = try reason("duplicate-and-bad-path")
        #expect(refused == .missingDeviceToken, "\(String(describing: refused))")
        #expect(try reason("no-auth-liveactivity") == .missingProviderToken)
    }
}
