import Foundation
import SpawnedProcess

/// The Python interpreter of a virtualenv holding one pinned PyPI package (aioapns for the sender tests,
/// check-jsonschema for the CI recipes), made once per machine and reused.
///
/// The work is done by `scripts/test/python_venv.py`: it builds
/// `${XDG_CACHE_HOME:-$HOME/.cache}/apns-emulator/venv-<package>-<version>`, trusts it only once a marker
/// written after a successful `pip install` exists, and serialises concurrent creators (parallel test
/// processes, several checkouts) with an flock'ed lock file. This actor adds the in-process half: every
/// test of the run awaits the same single attempt.
///
/// There is no skip: without PyPI (or `python3 -m venv`) the tests that need the package fail, with pip's
/// output in the message, so a broken CI machine cannot pass for a green run.
actor PythonVenv {
    /// The aioapns release the sender tests pin; the venv folder carries it, so a bump makes a fresh venv.
    static let aioapns = PythonVenv(requirement: "aioapns==4.0", imports: "aioapns, h2, jwt")
    /// The real senders of the front-door tests: Google's Firebase Admin SDK and pyfcm (FCM), OneSignal's official
    /// client and the community onesignal-sdk.
    static let providerClients = PythonVenv(
        requirement: "firebase-admin==7.7.0 pyfcm==2.1.1 onesignal-python-api==5.18.0 onesignal-sdk==2.0.0",
        imports: "firebase_admin, pyfcm, onesignal, onesignal_sdk")
    /// The schema checker of the CI recipe tests (its GitHub and GitLab schemas are bundled: no download).
    static let checkJsonschema = PythonVenv(requirement: "check-jsonschema==0.29.4", imports: "check_jsonschema")
    /// The Kubernetes manifest checker (Kubernetes' own JSON schemas are bundled: no cluster, no download).
    static let kubernetesValidate = PythonVenv(requirement: "kubernetes-validate==1.31.0", imports: "kubernetes_validate")

    let requirement: String
    let imports: String

    init(requirement: String, imports: String) {
        self.requirement = requirement
        self.imports = imports
    }

    /// Interpreter used to create the venv: `$APNS_EMULATOR_PYTHON`, else `python3` from `PATH`.
    static var bootstrapPython: String {
        ProcessInfo.processInfo.environment["APNS_EMULATOR_PYTHON"] ?? "python3"
    }

    private var attempt: Task<String, any Error>?

    /// The venv's `bin/python`, creating the venv on first use.
    func python() async throws -> String {
        if let attempt { return try await attempt.value }
        let task = Task { [requirement, imports] in try await Self.create(requirement, imports) }
        attempt = task
        return try await task.value
    }

    private static func create(_ requirement: String, _ imports: String) async throws -> String {
        let script = AioapnsPaths.packageRoot.appendingPathComponent("scripts/test/python_venv.py").path
        // pip's own retries are capped by the script at about a minute per request; five minutes covers a
        // slow first download, and a hang becomes a failure instead of a stuck CI run.
        // SIGTERM, then SIGKILL 3 s later: pip ignoring SIGTERM must not hang the suite.
        let output = try await SpawnedProcess.runToCompletion(
            bootstrapPython, [script, "--requirement", requirement, "--imports", imports],
            directory: AioapnsPaths.packageRoot, timeout: .seconds(300))
        let python = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard output.status == 0, !output.timedOut, FileManager.default.isExecutableFile(atPath: python) else {
            throw AioapnsSetupError(
                "could not provide \(requirement) in a venv (is PyPI reachable? is python3-venv installed?)\n"
                    + output.transcript)
        }
        return python
    }
}

/// Why a test needing a Python package could not even start; its text goes straight into the test failure.
struct AioapnsSetupError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Files the aioapns tests use, found from this source file so `swift test` works from any directory.
enum AioapnsPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let certificates = packageRoot.appendingPathComponent("certs")
    static let sender = packageRoot.appendingPathComponent("scripts/test/aioapns_sender.py")
    static let sampleKey = certificates.appendingPathComponent("AuthKey_DEVKEY1234.p8")
    static let ca = certificates.appendingPathComponent("ca.pem")
}
