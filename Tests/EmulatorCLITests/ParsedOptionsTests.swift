import Testing

@testable import EmulatorCLI

/// Value conversion: ranges, seconds, and that every rejection names the argument it came from.
struct ParsedOptionsTests {
    let number = OptionDeclaration.value("n", valueName: "n", help: "A number.")
    let delay = OptionDeclaration.value("delay", valueName: "seconds", help: "A delay.")
    let name = OptionDeclaration.value("name", valueName: "name", help: "A name.")

    private func parse(_ arguments: [String]) throws(UsageError) -> ParsedOptions {
        var cursor = ArgumentCursor(arguments)
        return try cursor.parseOptions([number, delay, name])
    }

    @Test func absentOptionConvertsToNil() throws {
        let parsed = try parse([])
        #expect(try parsed.integer(number, in: 0...9) == nil)
        #expect(try parsed.seconds(delay, allowingZero: true) == nil)
        #expect(try parsed.string(name) == nil)
    }

    @Test(arguments: ["x", "", "+5", " 5", "5.0", "0x10", "10"])
    func integerOutsideDigitsOrRangeIsRejectedWithTheRange(text: String) throws {
        let parsed = try parse(["--n", text])
        #expect(
            throws: UsageError.invalidValue(.init(index: 1, text: "--n \(text)"), expected: "an integer from 0 to 9")
        ) {
            try parsed.integer(number, in: 0...9)
        }
    }

    @Test func integerWithoutUpperBoundSaysAtLeast() throws {
        let parsed = try parse(["--n=-1"])
        #expect(throws: UsageError.invalidValue(.init(index: 1, text: "--n=-1"), expected: "an integer of at least 0"))
        {
            try parsed.integer(number, in: 0...Int.max)
        }
    }

    @Test func integerBoundsAreInclusive() throws {
        #expect(try parse(["--n", "0"]).integer(number, in: 0...9) == 0)
        #expect(try parse(["--n", "9"]).integer(number, in: 0...9) == 9)
    }

    @Test func secondsAcceptFractionsAndZeroOnlyWhenAllowed() throws {
        #expect(try parse(["--delay", "0.25"]).seconds(delay, allowingZero: false) == 0.25)
        #expect(try parse(["--delay", "0"]).seconds(delay, allowingZero: true) == 0)
        let zero = try parse(["--delay", "0"])
        #expect(
            throws: UsageError.invalidValue(
                .init(index: 1, text: "--delay 0"),
                expected: "a number of seconds greater than 0"
            )
        ) {
            try zero.seconds(delay, allowingZero: false)
        }
    }

    @Test(arguments: ["-1", "inf", "nan", "soon"])
    func secondsRejectNegativeAndNonFiniteValues(text: String) throws {
        let parsed = try parse(["--delay=\(text)"])
        #expect(throws: UsageError.self) { try parsed.seconds(delay, allowingZero: true) }
    }

    @Test func emptyEqualsValueIsRejectedRatherThanTreatedAsAName() throws {
        let parsed = try parse(["--name="])
        #expect(throws: UsageError.invalidValue(.init(index: 1, text: "--name="), expected: "a non-empty value")) {
            try parsed.string(name)
        }
    }
}
