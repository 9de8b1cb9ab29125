/// The parsers that take bytes from outside, each driven by arbitrary input: `make fuzz` runs them under
/// libFuzzer (`apns-emulator-fuzz`), and `make test` replays the corpus and every kept crash through the same
/// functions, so a fixed crash stays fixed.
///
/// A target must not crash, trap or hang on any input; what it answers is not checked here (the unit tests pin
/// that). Each keeps its fixtures across inputs, as a long-running emulator keeps its registries.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The provider API's request validator: header fields and a body (`ValidatorInput`).
    case validator
    /// The provider-token (JWT) parser and verifier.
    case providerToken = "provider-token"
    /// The payload scanner the validator runs on every body.
    case payloadScanner = "payload-scanner"
    /// The scenario file parser (libyaml, then the scenario grammar).
    case scenarioYAML = "scenario-yaml"
    /// The control API's JSON readers, through its router: one route picked by the first byte, the rest the body.
    case controlAPI = "control-api"
    /// The front doors' readers: the token endpoint's form, the FCM and OneSignal translators, registration tokens.
    case frontDoors = "front-doors"

    /// Runs one input. `certificates` is the folder holding the sample key the validator's tokens are signed with.
    public func run(_ input: UnsafeRawBufferPointer, certificates: String = "certs") {
        switch self {
        case .validator: _ = ValidatorHarness.shared(certificates).run(input)
        case .providerToken: ProviderTokenHarness.shared(certificates).run(input)
        case .payloadScanner: _ = PayloadScannerHarness.run(input)
        case .scenarioYAML: ScenarioHarness.run(input)
        case .controlAPI: ControlAPIHarness.shared(certificates).run(input)
        case .frontDoors: FrontDoorHarness.shared(certificates).run(input)
        }
    }
}
