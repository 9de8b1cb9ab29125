import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The README's shell blocks marked `<!-- runnable -->` run as written, in order, against one fresh `serve`
/// (its free ports and the debug binary put in place of the README's 2197, 2198, 8765 and `.build/release/`).
/// A block fails on a non-zero exit, on a control-API error body in its output, or without the text its
/// marker says to expect (`<!-- runnable: expect TEXT -->`).
@Suite("README commands", .timeLimit(.minutes(3)))
struct ReadmeCommandsTests {
    struct Block {
        var line: Int
        var script: String
        var expect: String?
    }

    static func runnableBlocks(_ readme: String) -> [Block] {
        var blocks: [Block] = []
        let lines = readme.components(separatedBy: "\n")
        var i = 0
        while i < lines.count {
            let marker = lines[i].trimmingCharacters(in: .whitespaces)
            guard marker.hasPrefix("<!-- runnable"), marker.hasSuffix("-->"), i + 1 < lines.count,
                  lines[i + 1].hasPrefix("```sh") else { i += 1; continue }
            var expect: String?
            if let colon = marker.range(of: "expect ") {
                expect = String(marker[colon.upperBound...].dropLast(3)).trimmingCharacters(in: .whitespaces)
            }
            var body: [String] = []
            var j = i + 2
            while j < lines.count, !lines[j].hasPrefix("```") { body.append(lines[j]); j += 1 }
            blocks.append(Block(line: i + 2, script: body.joined(separator: "\n"), expect: expect))
            i = j + 1
        }
        return blocks
    }

    @Test func theMarkedBlocksAreFoundWithTheirExpectations() throws {
        let readme = try String(contentsOf: ExecutableTests.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.runnableBlocks(readme)
        #expect(blocks.count >= 5, "quick start, shaping, faults, virtual devices")
        #expect(blocks.first?.expect == #""reason":"BadDeviceToken""#)
    }

    @Test func everyRunnableBlockWorksAsWritten() async throws {
        let readme = try String(contentsOf: ExecutableTests.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let served = try await ServedEmulator()
        defer { served.stop() }
        let (production, sandbox, control) = (try served.port("production"), try served.port("sandbox"),
                                              try served.port("control"))
        for block in Self.runnableBlocks(readme) {
            let script = block.script
                .replacingOccurrences(of: "127.0.0.1:8765", with: "127.0.0.1:\(control)")
                .replacingOccurrences(of: ":2197", with: ":\(production)")
                .replacingOccurrences(of: ":2198", with: ":\(sandbox)")
                .replacingOccurrences(of: ".build/release/apns-emulator", with: ExecutableTests.binary.path)
            let run = try await SpawnedProcess.runToCompletion(
                "/bin/bash", ["-euo", "pipefail", "-c", script], directory: ExecutableTests.packageRoot,
                environment: ["APNS_EMULATOR_CONTROL_URL": "http://127.0.0.1:\(control)"], timeout: .seconds(60))
            #expect(run.status == 0, "README.md:\(block.line): \(run.transcript)")
            #expect(!run.stdout.contains(#"{"error""#), "README.md:\(block.line): a control call was refused: \(run.stdout)")
            if let expect = block.expect {
                #expect(run.stdout.contains(expect), "README.md:\(block.line): expected \(expect) in \(run.stdout)")
            }
        }
    }
}
