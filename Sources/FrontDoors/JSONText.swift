import Foundation

/// JSON output for the front doors' answers (small objects; keys sorted so answers are stable to compare).
package enum JSONText {
    package static func bytes(_ object: Any) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data)
    }
}
