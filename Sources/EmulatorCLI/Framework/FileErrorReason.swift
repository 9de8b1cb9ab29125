import Foundation

/// The short reason a file could not be read, for messages that name the file.
///
/// Foundation's file errors carry the POSIX reason underneath a long description ("The file doesn't exist."
/// plus a dump of its user info); the short reason reads better after the path.
enum FileErrorReason {
    static func text(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError {
            return "no such file"
        }
        return nsError.localizedDescription
    }
}
