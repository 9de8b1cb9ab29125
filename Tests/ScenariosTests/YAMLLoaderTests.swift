import Testing

@testable import Scenarios

@Suite("YAMLLoader (libyaml)")
struct YAMLLoaderTests {
    @Test func mappingsSequencesAndScalarsKeepTheirLineAndColumn() throws {
        let node = try #require(try YAMLLoader.load("name: a\nsteps:\n  - x: 1\n    y: \"2\"\n"))
        guard case .mapping(let pairs, let m) = node else {
            Issue.record("not a mapping: \(node)")
            return
        }
        #expect(m == .init(line: 1, column: 1))
        #expect(pairs.count == 2)
        guard case .sequence(let items, let sm) = pairs[1].value, case .mapping(let inner, _) = items[0] else {
            Issue.record("bad shape")
            return
        }
        #expect(sm == .init(line: 3, column: 3))
        #expect(inner[0].value == .scalar("1", quoted: false, .init(line: 3, column: 8)))
        #expect(inner[1].value == .scalar("2", quoted: true, .init(line: 4, column: 8)))
    }

    @Test func aliasesAreExpanded() throws {
        let node = try #require(try YAMLLoader.load("a: &p {x: 1}\nb: *p\n"))
        guard case .mapping(let pairs, _) = node, case .mapping(let b, _) = pairs[1].value else {
            Issue.record("bad shape")
            return
        }
        #expect(b.first?.value == .scalar("1", quoted: false, .init(line: 1, column: 11)))
    }

    @Test func jsonIsReadToo() throws {
        let node = try #require(try YAMLLoader.load(#"{"name": "j", "tags": ["a", "b"]}"#))
        guard case .mapping(let pairs, _) = node else {
            Issue.record("bad shape")
            return
        }
        #expect(pairs.count == 2)
    }

    @Test func syntaxErrorsSayWhereAndWhat() {
        #expect(throws: YAMLLoader.Failure(message: "while parsing a flow sequence: did not find expected ',' or ']'",
                                          mark: .init(line: 2, column: 1))) {
            try YAMLLoader.load("a: [1, 2\n")
        }
    }

    @Test func duplicateKeysAreRefused() {
        #expect(throws: YAMLLoader.Failure(message: "duplicate key 'a'", mark: .init(line: 2, column: 1))) {
            try YAMLLoader.load("a: 1\na: 2\n")
        }
    }

    @Test func aliasBombsAreStopped() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1..<8 { text += "a\(i): &a\(i) [*a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1), *a\(i - 1)]\n" }
        #expect(throws: YAMLLoader.Failure.self) { try YAMLLoader.load(text) }
    }

    @Test func emptyDocumentIsNil() throws {
        #expect(try YAMLLoader.load("") == nil)
        #expect(try YAMLLoader.load("# only a comment\n") == nil)
    }
}
