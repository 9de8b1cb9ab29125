import Foundation
import SpawnedProcess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `redis-server` on a free loopback port, in memory only (no RDB, no AOF), for the tests of
/// replicas sharing state; killed by PID when the test ends.
final class RedisServerProcess {
    let process = SpawnedProcess()
    let port: Int
    var url: String { "redis://127.0.0.1:\(port)" }

    init(port: Int? = nil) async throws {
        self.port = try port ?? ScaleProfileTests.freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", String(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--protected-mode", "yes"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !Self.answersPing(self.port), Date() < deadline, process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(Self.answersPing(self.port), "redis-server did not start on 127.0.0.1:\(self.port)")
    }

    /// Sends `PING` in the inline protocol and waits for `+PONG`.
    static func answersPing(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return false }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = "PING\r\n".withCString { send(fd, $0, 6, 0) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n >= 5 && String(decoding: buffer.prefix(5), as: UTF8.self) == "+PONG"
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
