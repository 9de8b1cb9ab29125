import Testing

@testable import EmulatorCLI

/// Shape-level parsing: which arguments are options, values, operands or mistakes, and which index each error names.
struct ArgumentCursorTests {
    let port = OptionDeclaration.value("port", shortName: "p", valueName: "port", help: "A port.")
    let force = OptionDeclaration.flag("force", shortName: "f", help: "Force.")
    var declarations: [OptionDeclaration] { [port, force] }

    private func parse(_ arguments: [String], allowingOperands: Bool = false) throws(UsageError) -> ParsedOptions {
        var cursor = ArgumentCursor(arguments)
        return try cursor.parseOptions(declarations, allowingOperands: allowingOperands)
    }

    @Test func argumentsAreNumberedFromOneLikeShellPositionals() {
        let cursor = ArgumentCursor(["serve", "--port", "1"])
        #expect(cursor.arguments.map(\.index) == [1, 2, 3])
        #expect(cursor.arguments[1].description == "argument 2 '--port'")
    }

    @Test func separateValueIsJoinedWithItsOptionAndKeepsTheOptionsIndex() throws {
        let parsed = try parse(["--force", "--port", "80"])
        let occurrence = try #require(parsed.last(port))
        #expect(occurrence.value == "80")
        #expect(occurrence.argument == ArgumentCursor.Argument(index: 2, text: "--port 80"))
    }

    @Test func equalsFormCarriesTheValueInOneArgument() throws {
        let parsed = try parse(["--port=80"])
        #expect(parsed.last(port)?.value == "80")
        #expect(parsed.last(port)?.argument.text == "--port=80")
    }

    @Test func equalsFormKeepsLaterEqualsSignsInTheValue() throws {
        #expect(try parse(["--port=a=b"]).last(port)?.value == "a=b")
    }

    @Test func shortOptionsTakeSeparateOrAttachedValues() throws {
        #expect(try parse(["-p", "80"]).last(port)?.value == "80")
        #expect(try parse(["-p80"]).last(port)?.value == "80")
        #expect(try parse(["-f"]).flag(force))
    }

    @Test func lastOccurrenceWinsSoScriptsCanAppendOverrides() throws {
        let parsed = try parse(["--port", "1", "--port=2"])
        #expect(parsed.last(port)?.value == "2")
        #expect(parsed.last(port)?.argument.index == 3)
    }

    @Test func unknownOptionNamesTheArgumentAndSuggestsTheNearestSpelling() {
        #expect(throws: UsageError.unknownOption(.init(index: 2, text: "--prot"), suggestion: "--port")) {
            try parse(["--force", "--prot", "1"])
        }
    }

    @Test func unknownOptionWithEqualsIsStillUnknownNotAValueError() {
        #expect(throws: UsageError.unknownOption(.init(index: 1, text: "--colour=red"), suggestion: nil)) {
            try parse(["--colour=red"])
        }
    }

    @Test func missingValueAtEndOfLineNamesTheOption() {
        #expect(throws: UsageError.missingValue(.init(index: 2, text: "--port"), for: port)) {
            try parse(["--force", "--port"])
        }
    }

    @Test func followingOptionIsNotSwallowedAsAValue() {
        #expect(throws: UsageError.missingValue(.init(index: 1, text: "--port"), for: port)) {
            try parse(["--port", "--force"])
        }
    }

    @Test func flagWithAValueIsRejected() {
        #expect(throws: UsageError.unexpectedValue(.init(index: 1, text: "--force=yes"), for: force)) {
            try parse(["--force=yes"])
        }
    }

    @Test func unexpectedPositionalNamesItsIndex() {
        #expect(throws: UsageError.unexpectedArgument(.init(index: 3, text: "stray"))) {
            try parse(["--port", "1", "stray"])
        }
    }

    @Test func doubleDashEndsOptionsAndPassesDashedOperandsThrough() throws {
        let parsed = try parse(["--force", "--", "--port", "x"], allowingOperands: true)
        #expect(parsed.flag(force))
        #expect(parsed.last(port) == nil)
        #expect(parsed.operands.map(\.text) == ["--port", "x"])
    }

    @Test func operandsAfterDoubleDashAreStillRejectedWhenTheCommandTakesNone() {
        #expect(throws: UsageError.unexpectedArgument(.init(index: 2, text: "x"))) {
            try parse(["--", "x"])
        }
    }

    @Test func loneDashIsAnOperandNotAnOption() throws {
        #expect(try parse(["-"], allowingOperands: true).operands.map(\.text) == ["-"])
    }
}
