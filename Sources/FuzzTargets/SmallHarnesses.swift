import APNsEmulator
import APNsProtocol
import Scenarios

/// The provider-token parser on the raw bytes, then the verifier on them as text (against the sample key).
final class ProviderTokenHarness: Sendable {
    private let keys: KeyRegistry
    private let verifier = ProviderTokenVerifier()
    private static let instance = OnFirstUse<ProviderTokenHarness>()

    static func shared(_ certificates: String) -> ProviderTokenHarness {
        instance.get { ProviderTokenHarness(keys: ValidatorHarness.shared(certificates).services.keys) }
    }

    private init(keys: KeyRegistry) { self.keys = keys }

    func run(_ input: UnsafeRawBufferPointer) {
        _ = try? ProviderToken(compact: input)
        _ = verifier.verify(String(decoding: input, as: UTF8.self), keys: keys, acceptDER: true)
    }
}

enum PayloadScannerHarness {
    static func run(_ input: UnsafeRawBufferPointer) -> PayloadScanner.Summary {
        PayloadScanner.scan(Array(input))
    }
}

enum ScenarioHarness {
    static func run(_ input: UnsafeRawBufferPointer) {
        _ = try? ScenarioParser(file: "fuzz.yaml").parse(String(decoding: input, as: UTF8.self))
    }
}
