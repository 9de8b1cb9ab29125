import Foundation
import Synchronization
import Testing

@testable import EmulatorCLI

/// Collects everything written to an `OutputSink`, so tests read output without spawning the executable.
final class CapturedOutput: Sendable {
    private let buffer = Mutex("")

    var sink: OutputSink {
        OutputSink { text in self.buffer.withLock { $0 += text } }
    }

    var text: String { buffer.withLock { $0 } }
}

/// The result of one in-process command line.
struct CLIResult {
    var code: ExitCode
    var output: String
    var errorOutput: String
}

/// Runs a whole command line through `EmulatorCLIMain.run`, exactly as `main` would, minus `exit`.
func runCLI(_ arguments: [String], waitForStopSignal: @escaping @Sendable () async -> Int32 = { 15 }) async -> CLIResult
{
    let output = CapturedOutput()
    let errorOutput = CapturedOutput()
    let context = CommandContext(
        output: output.sink,
        errorOutput: errorOutput.sink,
        waitForStopSignal: waitForStopSignal
    )
    let code = await EmulatorCLIMain.run(arguments: arguments, context: context)
    return CLIResult(code: code, output: output.text, errorOutput: errorOutput.text)
}

/// Parses and validates one command's own arguments (those after its name), as the runner would.
func parse<C: Command>(_ command: C.Type, _ arguments: [String]) throws(UsageError) -> C {
    // Positions start at 2 because the subcommand's name is argument 1 on a real command line.
    var cursor = ArgumentCursor(arguments, firstIndex: 2)
    let parsed = try C(parsing: &cursor)
    try parsed.validate()
    return parsed
}

/// The usage error parsing would raise, or nil (recording an issue) when parsing succeeds.
func parseError<C: Command>(
    _ command: C.Type,
    _ arguments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) -> UsageError? {
    do {
        _ = try parse(command, arguments)
        Issue.record("expected a usage error for \(arguments)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// One option's help entry with its wrapped lines joined, so checks do not depend on where a line breaks.
func helpEntry(for spelling: String, in help: String) -> String? {
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(spelling) ") || $0 == "  \(spelling)" }) else {
        return nil
    }
    var entry = [lines[start]]
    for line in lines[(start + 1)...] {
        guard line.hasPrefix("   ") else { break }
        entry.append(line)
    }
    return entry.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
}

/// A fresh folder under the system temp directory, removed afterwards; certificate and ready files go here.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("EmulatorCLITests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A compact JWS taken apart: each JSON segment as text, the raw signature, and the bytes it signs.
struct DecodedToken {
    var header: String
    var claims: String
    var signature: [UInt8]
    var signingInput: [UInt8]

    init(_ token: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3, "not a compact JWS: \(token)", sourceLocation: sourceLocation)
        func decode(_ segment: String) throws -> [UInt8] {
            #expect(!segment.contains("="), "base64url must be unpadded", sourceLocation: sourceLocation)
            var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            return Array(try #require(Data(base64Encoded: base64), sourceLocation: sourceLocation))
        }
        header = String(decoding: try decode(segments[0]), as: UTF8.self)
        claims = String(decoding: try decode(segments[1]), as: UTF8.self)
        signature = try decode(segments[2])
        signingInput = Array("\(segments[0]).\(segments[1])".utf8)
    }

    /// The `iat` claim, read from the claims JSON.
    var issuedAt: Int64? {
        let object = try? JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any]
        return (object?["iat"] as? NSNumber)?.int64Value
    }
}
