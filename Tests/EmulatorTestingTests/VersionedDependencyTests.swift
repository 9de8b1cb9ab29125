import Foundation
import Testing
import SpawnedProcess

/// The package as its users get it: a tagged version fetched by SwiftPM, not this checkout's targets.
///
/// SwiftPM is stricter with a versioned dependency than with the root package (no `unsafeFlags`, only products can
/// be used, only `public` API is reachable), so this builds a throwaway package against a tagged copy of the working
/// tree with the `swift` the suite runs under.
@Suite("EmulatorTesting as a versioned dependency")
struct VersionedDependencyTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `make test SWIFT=/path/to/swift` exports SWIFT to the tests; otherwise `swift` from PATH.
    static let swift = ProcessInfo.processInfo.environment["SWIFT"].flatMap { $0.isEmpty ? nil : $0 } ?? "swift"

    /// Printed by the consumer once the journal holds the push with status 200.
    static let successLine = "consumer: push journaled with status 200"

    @Test func aPackageDependingOnATaggedVersionStartsTheEmulatorAndJournalsAPush() async throws {
        let temp = FileManager.default.temporaryDirectory
            .appendingPathComponent("versioned-dependency-\(UUID().uuidString)", isDirectory: true)
        // The folder's name is the package identity the consumer's manifest refers to.
        let repository = temp.appendingPathComponent("apns-emulator", isDirectory: true)
        let consumer = temp.appendingPathComponent("consumer", isDirectory: true)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }

        // a) The working tree as git sees it (tracked plus untracked-but-not-ignored), committed and tagged 1.0.0.
        let listed = try await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], in: Self.packageRoot,
                                   isolated: false)
        try #require(listed.status == 0, "git ls-files: \(listed.transcript)")
        let files = listed.stdout.split(separator: "\0").map(String.init)
        try #require(files.contains("Package.swift"), "git ls-files listed no Package.swift:\n\(listed.transcript)")
        let copied = try await offPool { try Self.copy(files, from: Self.packageRoot, to: repository) }
        try #require(copied > 0)
        for step in [["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "1.0.0"], ["tag", "1.0.0"]] {
            let r = try await git(step, in: repository)
            try #require(r.status == 0, "git \(step.joined(separator: " ")): \(r.transcript)")
        }

        // b) A package that depends on that tag the ordinary way and uses the EmulatorTesting product.
        try Self.writeConsumer(at: consumer, dependingOn: repository)

        // c) Build it (debug, scratch and SwiftPM caches inside the temp folder) and run it. The build takes both
        // cores for half a minute; at a lower priority it leaves the suite's timing-sensitive tests their CPU.
        let state = temp.appendingPathComponent("swiftpm", isDirectory: true)
        // SwiftPM leaves lock files named after the scratch path in TMPDIR; give it one that goes with the rest.
        let tmp = temp.appendingPathComponent("tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let build = try await runTool("nice", [
            "-n", "10", Self.swift, "build", "-c", "debug", "--package-path", consumer.path,
            "--scratch-path", state.appendingPathComponent("scratch").path,
            "--cache-path", state.appendingPathComponent("cache").path,
            "--config-path", state.appendingPathComponent("config").path,
            "--security-path", state.appendingPathComponent("security").path,
            "--manifest-cache", "local",
        ], in: consumer, environment: ["TMPDIR": tmp.path], timeout: .seconds(600))
        try #require(build.status == 0, "the consumer did not build against apns-emulator 1.0.0:\n\(build.transcript)")

        let executable = state.appendingPathComponent("scratch/debug/consumer")
        let certificates = temp.appendingPathComponent("certs", isDirectory: true)
        let run = try await runTool(executable.path, [certificates.path], in: consumer, timeout: .seconds(120))
        #expect(run.status == 0, "the consumer: \(run.transcript)")
        #expect(run.stdout.contains(Self.successLine), "\(run.transcript)")
    }

    /// git in `directory`, never in a repository named by the environment (GIT_DIR and the like).
    ///
    /// In the throwaway repository (`isolated`) it runs without the machine's or the user's configuration (signing,
    /// templates, hooks) and with a fixed identity. In this checkout it keeps them: a CI runner may need its
    /// `safe.directory` to read a checkout owned by another user.
    func git(_ arguments: [String], in directory: URL, isolated: Bool = true) async throws -> SpawnedProcess.Completion {
        var environment: [String: String?] = ["GIT_DIR": nil, "GIT_WORK_TREE": nil, "GIT_INDEX_FILE": nil,
                                              "GIT_OBJECT_DIRECTORY": nil, "GIT_CEILING_DIRECTORIES": nil]
        var options: [String] = []
        if isolated {
            environment["GIT_CONFIG_NOSYSTEM"] = "1"
            environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
            options = ["-c", "user.name=apns-emulator tests", "-c", "user.email=tests@example.invalid",
                       "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "init.defaultBranch=main"]
        }
        return try await runTool("git", options + arguments, in: directory, environment: environment,
                                          timeout: .seconds(60))
    }

    /// Copies `files` (paths relative to `source`) into `destination`, keeping symbolic links and permissions, and
    /// skipping files git lists that are gone from the working tree (deleted, not yet committed). Returns how many.
    static func copy(_ files: [String], from source: URL, to destination: URL) throws -> Int {
        let fm = FileManager.default
        var count = 0
        for file in files {
            let from = source.appendingPathComponent(file)
            guard let attributes = try? fm.attributesOfItem(atPath: from.path) else { continue }
            let to = destination.appendingPathComponent(file)
            try fm.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
            if attributes[.type] as? FileAttributeType == .typeSymbolicLink {
                try fm.createSymbolicLink(atPath: to.path, withDestinationPath: fm.destinationOfSymbolicLink(atPath: from.path))
            } else {
                try fm.copyItem(at: from, to: to)
            }
            count += 1
        }
        return count
    }

    static func writeConsumer(at consumer: URL, dependingOn repository: URL) throws {
        let sources = consumer.appendingPathComponent("Sources/consumer", isDirectory: true)
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "consumer",
            dependencies: [
                .package(url: "\(repository.absoluteURL.absoluteString)", from: "1.0.0"),
            ],
            targets: [
                .executableTarget(
                    name: "consumer",
                    dependencies: [
                        .product(name: "EmulatorTesting", package: "apns-emulator"),
                        .product(name: "APNsEmulator", package: "apns-emulator"),
                        .product(name: "H2Transport", package: "apns-emulator"),
                    ]
                ),
            ]
        )

        """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try #"""
        // Starts the emulator in-process, pushes once over TLS + HTTP/2 to its production listener and checks the
        // journal. Usage: consumer <folder for the development certificates>
        import APNsEmulator
        import EmulatorTesting
        import Foundation
        import H2Transport

        func fail(_ message: String) -> Never {
            print("consumer: FAILED: \(message)")
            exit(1)
        }

        guard CommandLine.arguments.count == 2 else { fail("usage: consumer <certificates folder>") }
        do {
            let certificates = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
            _ = try DevCertificates.ensure(in: certificates, force: false)
            let emulator = try TestEmulator(certificatesDirectory: certificates.path)
            defer { emulator.shutdown() }
            let token = try emulator.issueToken()
            let connection = try await emulator.connect(.production)
            let response = try await connection.send(emulator.push(to: token, jwt: try emulator.sampleJWT()))
            guard response.status == 200 else { fail("the push was answered \(response.status): \(response.bodyText)") }
            let apnsId = response["apns-id"] ?? ""
            let entries = emulator.services.journal.query(JournalFilter(token: token))
            guard entries.count == 1, let entry = entries.first else { fail("the journal holds \(entries.count) entries for the token") }
            guard entry.status == 200, entry.apnsId == apnsId, entry.environment == .production else {
                fail("journaled \(entry.status) \(entry.apnsId) \(entry.environment), answered 200 \(apnsId)")
            }
            connection.close()
        } catch {
            fail("\(error)")
        }
        print("\#(successLine)")

        """#.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    }
}
