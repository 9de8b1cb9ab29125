import Foundation

/// Where a started emulator can be reached; also the `--ready-file` contents other tools read.
public struct EmulatorEndpoints: Sendable, Equatable, Codable {
    /// `https://127.0.0.1:P` of the production listener.
    public var production: String
    /// `https://127.0.0.1:S` of the sandbox listener.
    public var sandbox: String
    /// `http://127.0.0.1:C` of the control API.
    public var control: String
    /// Absolute path of the CA certificate that signed the server certificate.
    public var ca: String
    /// `https://127.0.0.1:F` of the providers' front doors, when they listen.
    public var frontDoors: String?

    public init(production: String, sandbox: String, control: String, ca: String) {
        self.production = production
        self.sandbox = sandbox
        self.control = control
        self.ca = ca
    }

    public var productionPort: Int { Self.port(of: production) }
    public var sandboxPort: Int { Self.port(of: sandbox) }
    public var controlPort: Int { Self.port(of: control) }
    public var frontDoorPort: Int? { frontDoors.map(Self.port(of:)) }

    private static func port(of url: String) -> Int {
        Int(url.split(separator: ":").last ?? "") ?? 0
    }

    /// The ready-file JSON with the key order documented in the README (tools may parse it naively).
    public var readyJSON: String {
        func q(_ s: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            let text = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
            return String(text.dropFirst().dropLast())
        }
        let front = frontDoors.map { #","frontDoors":\#(q($0))"# } ?? ""
        return #"{"production":\#(q(production)),"sandbox":\#(q(sandbox)),"control":\#(q(control)),"ca":\#(q(ca))\#(front)}"#
    }

    /// Writes the ready JSON atomically, so a reader polling for the file never sees half of it.
    public func writeReadyFile(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try Data((readyJSON + "\n").utf8).write(to: url, options: .atomic)
    }
}
