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
        emulator.shutdown()
        return result
    } catch {
        emulator.shutdown()
        throw error
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
