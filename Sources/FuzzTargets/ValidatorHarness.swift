import APNsEmulator
import APNsProtocol
import H2Transport
import StateStore

/// Feeds the validator a request built from the input: `name: value` lines up to the first empty line (names
/// as given, pseudo-headers included), then the body. The registries hold the sample key and the app token the
/// corpus's requests name, so inputs reach the checks past authentication.
final class ValidatorHarness: Sendable {
    /// 2026-01-01T00:00:00Z: the corpus's provider tokens are issued then.
    static let now: Int64 = 1_767_225_600_000
    /// The token the corpus's requests push to (a production app token of com.example.app).
    static let token = String(repeating: "ab", count: 32)

    let services: EmulatorServices
    private static let instance = OnFirstUse<ValidatorHarness>()

    static func shared(_ certificates: String) -> ValidatorHarness {
        instance.get { ValidatorHarness(certificates: certificates) }
    }

    private init(certificates: String) {
        services = .forFuzzing(certificates)
        try! services.tokens.register(DeviceTokenRecord(token: Self.token, bundleId: "com.example.app",
                                                        environment: .production, createdAt: Self.now))
    }

    /// The validator's answer: nil when the push is accepted.
    @discardableResult
    func run(_ input: UnsafeRawBufferPointer) -> APNsReason? {
        var state = ConnectionAuthState()
        let context = ValidationContext(environment: .production, auth: .token, now: Self.now,
                                        policy: ValidationPolicy(), keys: services.keys, tokens: services.tokens,
                                        verifier: services.verifier)
        if case .failure(let rejection) = APNsValidator().validate(Self.request(input), context: context, state: &state) {
            return rejection.reason
        }
        return nil
    }

    /// The request an input stands for (see the type's overview).
    static func request(_ input: UnsafeRawBufferPointer) -> H2Request {
        var headers = H2HeaderList()
        var rest = input[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            let line = rest[rest.startIndex..<newline]
            rest = rest[(newline + 1)...]
            if line.isEmpty { break }
            let colon = line.dropFirst().firstIndex(of: 0x3A) ?? line.endIndex
            let value = line[colon...].dropFirst().drop { $0 == 0x20 }
            headers.append(name: UnsafeRawBufferPointer(rebasing: line[..<colon]),
                           value: UnsafeRawBufferPointer(rebasing: value))
        }
        return H2Request(headers: headers, body: Array(rest))
    }
}
