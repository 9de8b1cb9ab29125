import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import Testing

/// The bundled certs/ folder at the package root.
let bundledCertificates = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("certs").path

/// Runs `body` against a fresh in-process emulator and shuts it down afterwards.
func withEmulator<R>(configure: (inout EmulatorConfiguration) -> Void = { _ in },
                     _ body: (TestEmulator) async throws -> R) async throws -> R {
    let emulator = try TestEmulator(certificatesDirectory: bundledCertificates, configure: configure)
    do {
        let result = try await body(emulator)
        await offPool { emulator.shutdown() }
        return result
    } catch {
        await offPool { emulator.shutdown() }
        throw error
    }
}

/// Runs blocking work on its own thread so the cooperative pool (2 threads here) keeps serving tests.
func offPool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            body()
            cont.resume()
        }
    }
}

/// The JSON error body of an APNs response.
struct ReasonBody: Decodable, Equatable {
    var reason: String
    var timestamp: Int64?
}

func reasonBody(_ response: H2Response) -> ReasonBody? {
    try? JSONDecoder().decode(ReasonBody.self, from: Data(response.body))
}

/// Checks a response is exactly Apple's rejection for `reason`.
func expectRejection(_ response: H2Response, _ reason: APNsReason, timestamp: Int64? = nil, apnsId: String? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == reason.status, "status for \(reason)", sourceLocation: sourceLocation)
    #expect(reasonBody(response)?.reason == reason.rawValue, "body \(response.bodyText)", sourceLocation: sourceLocation)
    #expect(response["content-type"] == "application/json", sourceLocation: sourceLocation)
    #expect(response["x-apns-emulator"] == EmulatorVersion.current, sourceLocation: sourceLocation)
    if let apnsId { #expect(response["apns-id"] == apnsId, sourceLocation: sourceLocation) }
    else { #expect(response["apns-id"].map { APNsID.isCanonical($0.utf8) } == true, sourceLocation: sourceLocation) }
    if reason.carriesTimestamp {
        #expect(reasonBody(response)?.timestamp == timestamp, "timestamp", sourceLocation: sourceLocation)
    } else {
        #expect(reasonBody(response)?.timestamp == nil, sourceLocation: sourceLocation)
    }
}
