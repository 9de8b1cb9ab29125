import APNsEmulator
import CShims
import EmulatorControl
import Foundation
import FrontDoors
import VirtualDevices

/// `apns-emulator exec -- CMD…`: runs a sender's own test suite against a fresh emulator.
///
/// The emulator starts on free ports with in-memory state; CMD gets the endpoints in its environment;
/// when CMD ends the emulator stops and `exec` exits with CMD's code (128 + the signal if CMD was killed),
/// so it drops into a CI step unchanged.
public struct ExecCommand: Command {
    enum Option {
        static let certificates = OptionDeclaration.value(
            "certs", valueName: "dir", help: "Folder with ca.pem, server.pem and the sample key.",
            default: EmulatorConfiguration().certificatesDirectory)
        static let manualClock = OptionDeclaration.flag(
            "manual-clock", help: "Run the emulator on a manual clock (moved through the control API).")
        static let all = [certificates, manualClock]
    }

    /// The environment variables CMD receives: a contract for the scripts that read them.
    public enum Variable {
        public static let productionURL = "APNS_EMULATOR_PRODUCTION_URL"
        public static let sandboxURL = "APNS_EMULATOR_SANDBOX_URL"
        public static let controlURL = "APNS_EMULATOR_CONTROL_URL"
        public static let frontDoorsURL = "APNS_EMULATOR_FRONT_DOORS_URL"
        public static let caFile = "APNS_EMULATOR_CA_FILE"
        public static let keyFile = "APNS_EMULATOR_KEY_FILE"
        public static let keyId = "APNS_EMULATOR_KEY_ID"
        public static let teamId = "APNS_EMULATOR_TEAM_ID"
    }

    public static let configuration = CommandConfiguration(
        name: "exec",
        abstract: "Start the emulator, run a command against it, stop it, and exit with the command's code.",
        discussion: """
            Everything after '--' is the command. It runs with these variables set: \
            \(Variable.productionURL), \(Variable.sandboxURL) (https://127.0.0.1:PORT), \(Variable.controlURL), \
            \(Variable.frontDoorsURL) (FCM and OneSignal), \
            \(Variable.caFile) (the CA to trust), \(Variable.keyFile), \(Variable.keyId) and \(Variable.teamId) \
            (the sample signing key, registered in the emulator).

            Example:
              apns-emulator exec -- pytest tests/push
            """,
        options: Option.all
    )

    var command: [String]
    var certificates: String
    var manualClock: Bool

    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options, allowingOperands: true)
        command = options.operands.map(\.text)
        certificates = try options.string(Option.certificates) ?? EmulatorConfiguration().certificatesDirectory
        manualClock = options.flag(Option.manualClock)
        guard !command.isEmpty else {
            throw .missingOption(OptionDeclaration.value("--", valueName: "command", help: "the command to run"))
        }
    }

    public func run(context: CommandContext) async throws -> ExitCode {
        var c = EmulatorConfiguration.inProcess(certificatesDirectory: certificates)
        c.manualClock = manualClock
        let (emulator, _) = try Emulator.withFrontDoors(configuration: c)
        let endpoints = try emulator.start()
        defer { emulator.shutdown() }

        let keyFile = URL(fileURLWithPath: certificates).appendingPathComponent(
            "AuthKey_\(DevCertificates.sampleKeyId).p8").standardizedFileURL.path
        var environment = ProcessInfo.processInfo.environment
        environment[Variable.productionURL] = endpoints.production
        environment[Variable.sandboxURL] = endpoints.sandbox
        environment[Variable.controlURL] = endpoints.control
        environment[Variable.frontDoorsURL] = endpoints.frontDoors
        environment[Variable.caFile] = endpoints.ca
        environment[Variable.keyFile] = keyFile
        environment[Variable.keyId] = DevCertificates.sampleKeyId
        environment[Variable.teamId] = DevCertificates.sampleTeamId

        let status: Int32
        do {
            status = try await Self.spawnAndWait(command, environment: environment)
        } catch {
            context.errorOutput.writeLine("error: could not run \(command[0]): \(error)")
            return ExitCode(rawValue: 127)
        }
        return ExitCode(rawValue: status)
    }

    /// Runs `command` (looked up in PATH) with clean signal dispositions and waits off the cooperative pool;
    /// returns its exit status, or 128 + the signal that ended it (the shell's convention).
    static func spawnAndWait(_ command: [String], environment: [String: String]) async throws -> Int32 {
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = CShims_spawn_clean(&pid, command[0], argv, envp)
        guard rc == 0 else { throw ExecError(message: String(cString: strerror(rc))) }
        let child = pid
        return await withCheckedContinuation { (cont: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                let exited = (status & 0x7f) == 0
                cont.resume(returning: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f))
            }
        }
    }

    struct ExecError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
