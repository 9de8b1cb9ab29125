import APNsEmulator
import APNsProtocol
import Scenarios
import Synchronization

/// The provider-token parser on the raw bytes, then the verifier on them as text (against the sample key).
final class ProviderTokenHarness: Sendable {
    private let keys: KeyRegistry
    private let verifier = ProviderTokenVerifier()
    private static let instance = Mutex<ProviderTokenHarness?>(nil)

    static func shared(_ certificates: String) -> ProviderTokenHarness {
        instance.withLock { existing in
            if let existing { return existing }
            let made = ProviderTokenHarness(keys: ValidatorHarness.shared(certificates).services.keys)
            existing = made
            return made
        }
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
