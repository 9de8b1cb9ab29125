import Testing

@testable import EmulatorCLI

/// "Did you mean": typos and abbreviations get a suggestion, unrelated words do not.
struct SuggestionTests {
    let subcommands = ["serve", "certs", "version"]
    let options = ["--production-port", "--sandbox-port", "--control-port", "--host"]

    @Test func oneLetterTypoSuggestsTheSubcommand() {
        #expect(Suggestion.nearest(to: "serv", among: subcommands) == "serve")
        #expect(Suggestion.nearest(to: "cert", among: subcommands) == "certs")
    }

    @Test func unrelatedWordSuggestsNothing() {
        #expect(Suggestion.nearest(to: "start", among: subcommands) == nil)
        #expect(Suggestion.nearest(to: "--verbose", among: options) == nil)
    }

    @Test func misspelledLongOptionSuggestsIt() {
        #expect(Suggestion.nearest(to: "--prodution-port", among: options) == "--production-port")
    }

    @Test func unambiguousAbbreviationSuggestsTheFullOption() {
        #expect(Suggestion.nearest(to: "--sand", among: options) == "--sandbox-port")
    }

    @Test func swappedNeighboursCountAsOneTypo() {
        #expect(Suggestion.editDistance("--prot", "--port") == 1)
        #expect(Suggestion.nearest(to: "--hsot", among: options) == "--host")
    }

    @Test func editDistanceCountsInsertionsDeletionsAndSubstitutions() {
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("same", "same") == 0)
    }
}
