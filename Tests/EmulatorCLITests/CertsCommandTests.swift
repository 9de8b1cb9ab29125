import APNsEmulator
import Foundation
import Testing

@testable import EmulatorCLI

/// `certs` flags; writing the files themselves belongs to `DevCertificates` and its tests.
struct CertsCommandTests {
    @Test func defaultsToTheCertsFolderWithoutForce() throws {
        let command = try parse(CertsCommand.self, [])
        #expect(command.outputDirectory == "certs")
        #expect(command.force == false)
    }

    @Test func outAndForceAreParsedInEitherForm() throws {
        let separate = try parse(CertsCommand.self, ["--out", "/tmp/x", "--force"])
        let joined = try parse(CertsCommand.self, ["--force", "--out=/tmp/x"])
        #expect(separate.outputDirectory == "/tmp/x")
        #expect(separate.force)
        #expect(joined.outputDirectory == separate.outputDirectory)
        #expect(joined.force)
    }

    @Test func forceTakesNoValue() throws {
        let error = try #require(parseError(CertsCommand.self, ["--force=yes"]))
        #expect(error.description == "argument 2 '--force=yes': '--force' is a flag and takes no value")
    }
}

/// `certs` end to end against the real `DevCertificates`: one line per file, keep by default, replace on `--force`.
struct CertsCommandRunTests {
    @Test func firstRunWritesEveryFileAndSaysSoOneLinePerFile() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("certs").path
            let result = await runCLI(["certs", "--out", out])
            #expect(result.code == .success)
            let expected = DevCertificates.FileName.all.map { "wrote \(out)/\($0)" }
            #expect(result.output.split(separator: "\n").map(String.init) == expected)
            #expect(result.errorOutput.hasPrefix("note: wrote a new certificate set ("))
        }
    }

    @Test func secondRunKeepsTheHealthySetAndForceReplacesIt() async throws {
        try await withTemporaryDirectory { directory in
            let out = directory.path
            _ = await runCLI(["certs", "--out", out])
            let again = await runCLI(["certs", "--out=\(out)"])
            #expect(again.code == .success)
            #expect(again.output.split(separator: "\n").allSatisfy { $0.hasPrefix("kept \(out)/") })
            #expect(again.errorOutput.isEmpty)
            let forced = await runCLI(["certs", "--out", out, "--force"])
            #expect(forced.code == .success)
            #expect(forced.output.split(separator: "\n").allSatisfy { $0.hasPrefix("wrote \(out)/") })
        }
    }

    @Test func unwritableFolderPrintsTheErrorAndExits1() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: file)
            let result = await runCLI(["certs", "--out", file.appendingPathComponent("certs").path])
            #expect(result.code == .failure)
            #expect(result.errorOutput.hasPrefix("error: "))
        }
    }
}
