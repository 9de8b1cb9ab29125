import APNsEmulator

/// Why a control request was refused, and how that is said on the wire.
///
/// Every failure of the control API ends up as one of these cases, and `ControlAPI` turns it into a
/// response with `status` and `body`. Request errors (400) always carry `field`, the dotted path of the
/// offending JSON field or query parameter (`action.reason`, `topics[2]`, `limit`), or `null` when the
/// body as a whole is wrong; other statuses carry only `error`.
package enum ControlAPIError: Error, Equatable, CustomStringConvertible {
    /// The body is not JSON, or not a JSON object.
    case malformedJSON(String)
    /// A field (or query parameter) the endpoint does not know; `expected` lists the ones it does.
    case unknownField(String, expected: [String], location: FieldLocation)
    /// A field is missing, of the wrong type or has a value outside its domain; `message` is complete.
    case invalidField(String, message: String)
    /// The body was larger than the control port buffers (`ControlAPI.maxBodyBytes`; the bytes were discarded).
    case bodyTooLarge(limitBytes: Int)
    /// The body parses into more memory than a control call may take (many tiny values).
    case bodyTooComplex(budgetBytes: Int)
    /// The control token is set and the request did not carry it.
    case unauthorized(String)
    /// A web page's request the control API does not take (cross-site, or for a host that is not loopback).
    case forbidden(String)
    /// No such endpoint, or no such key, token or fault.
    case notFound(String)
    /// The path exists, the method does not; `allow` lists the methods that do.
    case methodNotAllowed(method: String, path: String, allow: [String])
    /// The request is well formed but the emulator's state forbids it (e.g. advancing a real-time clock).
    case conflict(String)
    /// The registry or the state store failed; nothing the client can fix by changing the request.
    case internalFailure(String)
    /// Not ready yet (listeners still starting); try again.
    case unavailable(String)

    /// Whether an unknown name was a JSON field or a query parameter (only the wording differs).
    package enum FieldLocation: Equatable {
        case body
        case query
    }

    package var status: Int {
        switch self {
        case .malformedJSON, .unknownField, .invalidField: return 400
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .methodNotAllowed: return 405
        case .conflict: return 409
        case .bodyTooLarge, .bodyTooComplex: return 413
        case .internalFailure: return 500
        case .unavailable: return 503
        }
    }

    /// The offending field for 400s (nil when the body as a whole is wrong).
    package var field: String? {
        switch self {
        case .unknownField(let name, _, _), .invalidField(let name, _): return name
        default: return nil
        }
    }

    /// The human-readable `error` text.
    package var message: String {
        switch self {
        case .malformedJSON(let why):
            return why
        case .unknownField(let name, let expected, let location):
            let noun = location == .body ? "field" : "query parameter"
            let list = expected.isEmpty ? "none" : "one of: " + expected.joined(separator: ", ")
            return "unknown \(noun) '\(name)' (expected \(list))"
        case .invalidField(_, let message):
            return message
        case .bodyTooLarge(let limit):
            return "request body too large: the control API takes at most \(limit / (1024 * 1024)) MiB"
        case .bodyTooComplex(let budget):
            return "request body too large: parsed, it would take more than \(budget / (1024 * 1024)) MiB of memory"
                + " (a control call's limit); send it in smaller parts"
        case .unauthorized(let why), .forbidden(let why), .notFound(let why), .conflict(let why), .internalFailure(let why),
             .unavailable(let why):
            return why
        case .methodNotAllowed(let method, let path, let allow):
            return "method \(method) not allowed on \(path) (allowed: \(allow.joined(separator: ", ")))"
        }
    }

    package var description: String { "ControlAPIError(\(status)): \(message)" }

    /// The JSON body: `{"error": …, "field": …}` for 400s, `{"error": …}` otherwise.
    var body: ErrorBody {
        ErrorBody(error: message, field: field, includesField: status == 400)
    }

    /// The error body as encoded (`field` is written as `null` rather than left out on 400s).
    struct ErrorBody: Encodable {
        var error: String
        var field: String?
        var includesField: Bool

        private enum CodingKeys: String, CodingKey { case error, field }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(error, forKey: .error)
            if includesField { try c.encode(field, forKey: .field) }
        }
    }
}

extension ControlAPIError {
    /// A missing required field, naming what it should have been.
    package static func missing(_ field: String, _ expected: String) -> ControlAPIError {
        .invalidField(field, message: "missing required field '\(field)' (\(expected))")
    }

    /// A field of the wrong JSON type or out of its domain: "field 'count' must be an integer ≥ 1 (got "x")".
    package static func invalid(_ field: String, mustBe expected: String, got: String? = nil) -> ControlAPIError {
        let suffix = got.map { " (got \($0))" } ?? ""
        return .invalidField(field, message: "field '\(field)' must be \(expected)\(suffix)")
    }

    /// A query parameter with a bad value.
    package static func invalidQuery(_ name: String, mustBe expected: String, got: String) -> ControlAPIError {
        .invalidField(name, message: "query parameter '\(name)' must be \(expected) (got '\(got)')")
    }
}
