import EmulatorTesting
import Foundation
import SpawnedProcess
import Testing

/// Frames no conforming client sends, written raw (Python's hyperframe, from a cached venv), and the connection
/// error the server must answer: the behaviours the HTTP/2 conformance suite (h2spec) checks there, which is
/// not packaged here.
@Suite("HTTP/2 frames a conforming client never sends", .timeLimit(.minutes(6)))
struct FrameConformanceTests {
    static let venv = PythonVenv(requirement: "hyperframe==6.1.0 hpack==4.2.0", imports: "hyperframe, hpack")

    /// RFC 9113 error codes.
    static let protocolError = 1, streamClosed = 5, frameSizeError = 6

    @Test(arguments: [("depends-on-itself", protocolError), ("priority-wrong-length", frameSizeError),
                      ("priority-stream-zero", protocolError), ("headers-after-end-stream", streamClosed),
                      ("data-after-end-stream", streamClosed), ("data-after-rst", streamClosed),
                      ("headers-after-rst", streamClosed)])
    func theServerAnswersWithTheConnectionErrorTheRFCNames(_ probe: String, _ code: Int) async throws {
        let python = try await Self.venv.python()
        let emu = try TestEmulator(certificatesDirectory: AioapnsPaths.certificates.path)
        defer { emu.shutdown() }
        let port = try #require(emu.endpoints.production.split(separator: ":").last.map(String.init))
        let run = try await SpawnedProcess.runToCompletion(
            python, [AioapnsPaths.packageRoot.appendingPathComponent("scripts/test/raw_frames.py").path,
                     "--port", port, "--ca", AioapnsPaths.ca.path, probe], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.transcript)")
        #expect(run.stdout.split(separator: "\n").contains("GOAWAY \(code)"), "\(probe): \(run.stdout)")
        // The emulator keeps serving others.
        let connection = try await emu.connect()
        defer { connection.close() }
        #expect(try await connection.send(emu.push(to: try emu.issueToken(), jwt: try emu.sampleJWT())).status == 200)
    }
}
