import Foundation
import SpawnedProcess
@testable import OpenSSLSupport

/// Helpers shared by the OpenSSLSupport suites: temporary folders, external tools, a ready-made CA.
enum TestSupport {
    /// Result of running an external program.
    struct ProcessResult {
        var status: Int32
        var output: String
    }

    /// Runs `arguments` through `/usr/bin/env`, merging stderr into the output for failure messages.
    static func run(_ arguments: [String], in directory: URL? = nil) throws -> ProcessResult {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// A fresh empty folder under the system temp directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("openssl-support-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    static func write(_ bytes: [UInt8], to url: URL) throws {
        try Data(bytes).write(to: url)
    }

    /// A fixed moment, so validity tests do not depend on the wall clock.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let day: TimeInterval = 86_400

    /// A self-signed CA valid from a day before `now` for a year.
    static func makeCA(name: String = "Test CA", key: PrivateKey? = nil) throws -> (Certificate, PrivateKey) {
        let key = try key ?? PrivateKey.generateP256()
        var builder = CertificateBuilder(subject: [.commonName(name)], notBefore: now - day, notAfter: now + 365 * day)
        builder.basicConstraints = .certificateAuthority(pathLength: nil)
        builder.keyUsage = [.keyCertSign, .cRLSign]
        return (try builder.selfSigned(key: key), key)
    }

    /// A leaf issued by `ca` with the given validity window (defaults: a day before `now`, 30 days).
    static func makeLeaf(
        issuedBy ca: (Certificate, PrivateKey),
        name: String = "leaf",
        notBefore: Date = now - day,
        notAfter: Date = now + 30 * day
    ) throws -> (Certificate, PrivateKey) {
        let key = try PrivateKey.generateP256()
        var builder = CertificateBuilder(subject: [.commonName(name)], notBefore: notBefore, notAfter: notAfter)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = [.serverAuth]
        builder.subjectAlternativeNames = [.dns("localhost")]
        return (try builder.issued(for: key.publicKey, by: ca.0, issuerKey: ca.1), key)
    }

    /// base64url without padding, as JWT segments are encoded.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
