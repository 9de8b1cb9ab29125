/// Why a scenario file is invalid: where (file:line:column) and what was expected there.
public struct ScenarioParseError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, mark: YAMLNode.Mark, _ message: String) {
        self.file = file
        self.line = mark.line
        self.column = mark.column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}
