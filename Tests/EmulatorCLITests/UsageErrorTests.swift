import Testing

@testable import EmulatorCLI

/// The wording users see after `error:`; CI logs are read by people, so it is pinned.
struct UsageErrorTests {
    @Test func errorWithAnArgumentIsPrefixedByItsIndexAndText() {
        let error = UsageError.invalidValue(.init(index: 3, text: "--production-port x"), expected: "an integer")
        #expect(error.description == "argument 3 '--production-port x': expected an integer")
    }

    @Test func errorWithoutAnArgumentIsJustTheMessage() {
        #expect(
            UsageError.missingSubcommand(available: ["a", "b"]).description
                == "missing subcommand (expected one of: a, b)"
        )
    }

    @Test func shortDescriptionNamesTheKindWithoutPayload() {
        let error = UsageError.unknownOption(.init(index: 9, text: "--secret-token=abc"), suggestion: nil)
        #expect(error.shortDescription == "UsageError.unknownOption")
    }
}
