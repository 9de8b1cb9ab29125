import APNsEmulator

/// A strict reader over a request's query arguments, the counterpart of `JSONBodyReader` for GET filters.
///
/// Every accessor names one parameter; `finish()` refuses parameters nobody asked for and parameters
/// given twice, so `?tokn=…` is an error rather than a filter silently not applied. Unlike the body
/// reader, accessors throw at once: query parameters have no nesting and no required ones, so there is
/// no missing-field error that an unknown name could explain.
package struct QueryReader {
    private let arguments: [(name: String, value: String)]
    private var known: [String] = []

    package init(_ arguments: [(name: String, value: String)]) {
        self.arguments = arguments
    }

    /// The value of `name`; an empty value (`?token=`) reads as absent, the way HTML forms send blanks.
    package mutating func string(_ name: String) -> String? {
        if !known.contains(name) { known.append(name) }
        guard let value = arguments.first(where: { $0.name == name })?.value, !value.isEmpty else { return nil }
        return value
    }

    /// An integer in `range`, or nil when absent.
    package mutating func integer(_ name: String, in range: ClosedRange<Int64>) throws(ControlAPIError) -> Int64? {
        guard let text = string(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw .invalidQuery(name, mustBe: "an integer from \(range.lowerBound) to \(range.upperBound)", got: text)
        }
        return value
    }

    /// Throws for the first parameter not asked for, then for the first one given more than once.
    package func finish() throws(ControlAPIError) {
        if let unknown = arguments.first(where: { !known.contains($0.name) }) {
            throw .unknownField(unknown.name, expected: known, location: .query)
        }
        var seen: Set<String> = []
        for argument in arguments where !seen.insert(argument.name).inserted {
            throw .invalidField(argument.name, message: "query parameter '\(argument.name)' is given more than once")
        }
    }
}
