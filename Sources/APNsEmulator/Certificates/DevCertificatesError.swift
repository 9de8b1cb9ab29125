import Foundation

/// A failure writing the development certificate set to disk.
///
/// A struct with a private code, so new cases can be added without breaking callers that switch on it.
public struct DevCertificatesError: Error, CustomStringConvertible, Sendable, Equatable {
    private enum Code: Sendable, Equatable {
        case createFailed
        case writeFailed
        case renameFailed
    }

    private let code: Code
    /// The file the failing call was about.
    public let path: String
    /// `errno` of the failing call.
    public let errno: Int32

    static func createFailed(_ path: String, errno: Int32) -> Self {
        Self(code: .createFailed, path: path, errno: errno)
    }
    static func writeFailed(_ path: String, errno: Int32) -> Self {
        Self(code: .writeFailed, path: path, errno: errno)
    }
    static func renameFailed(_ path: String, errno: Int32) -> Self {
        Self(code: .renameFailed, path: path, errno: errno)
    }

    /// Without the path, so it is safe as a metrics label.
    public var shortDescription: String { "DevCertificatesError.\(code)" }

    public var description: String {
        "\(shortDescription): \(path): \(String(cString: strerror(errno)))"
    }
}
