import APNsProtocol
import Foundation
import H2Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SendCommand {
    /// What the emulator at `control` knows of `token`: the environment it registered it in and its listener for
    /// it, or why it could not say.
    enum Route {
        case found(environment: APNsEnvironment, url: String)
        /// No emulator answered, or it does not know the token: the push goes where the flags say.
        case unknown
        /// It answered with this status (401: the control token is missing or wrong).
        case refused(Int)
    }

    /// Asks the control API, with `controlToken` as its bearer token; a lookup that fails changes nothing.
    static func route(of token: String, control: String, controlToken: String?) async -> Route {
        func get(_ path: String) async -> (status: Int, object: [String: Any]?) {
            guard let url = URL(string: control + path),
                  let answer = try? await ControlAPICall.send("GET", url, token: controlToken, timeout: 2) else { return (0, nil) }
            return answer
        }
        let record = await get("/_emulator/tokens/" + token.lowercased())
        guard record.status == 200 else {
            return record.status == 0 || record.status == 404 ? .unknown : .refused(record.status)
        }
        guard let environment = (record.object?["environment"] as? String).flatMap(APNsEnvironment.init(rawValue:)),
              let url = await get("/_emulator/endpoints").object?[environment == .sandbox ? "sandbox" : "production"]
                as? String else { return .unknown }
        return .found(environment: environment, url: url)
    }

    /// Mints the token, reads the payload, connects, sends, and returns the parsed response.
    ///
    /// Every failure becomes a `CommandFailure` naming what failed and where, since a bare "connect failed" on a CI
    /// log does not say whether the CA, the address or the server name was wrong.
    func send() async throws -> SendOutcome {
        let bearerToken: String? =
            switch authorization {
            case .none: nil
            case .token(let token): token
            case .mint(let key): try key.mintToken(issuedAt: ProviderKeyOptions.now())
            }
        let request = makeRequest(bearerToken: bearerToken, body: try payload.bytes())
        let client = try makeClient()
        defer { client.shutdown() }

        let address = try Self.numericAddress(for: target.host)
        let connection: H2ClientConnection
        do {
            connection = try await client.connect(host: address, port: target.port, serverName: target.serverName)
        } catch {
            throw CommandFailure(
                "could not connect to \(target.url) as \(target.serverName) (trusting \(caFile)): \(error)"
            )
        }
        let response: Result<H2Response, H2ClientError>
        do {
            response = .success(try await connection.send(request))
        } catch {
            response = .failure(error)
        }
        await Self.close(connection)
        switch response {
        case .success(let response): return SendOutcome(response)
        case .failure(let error): throw CommandFailure("the request to \(target.url) failed: \(error)")
        }
    }

    /// The TLS side: our CA (checked first, for a message that says how to get one) and the client identity.
    private func makeClient() throws -> H2Client {
        let caHint = caFile == Option.defaultCA ? "; run 'apns-emulator certs' or pass --ca" : ""
        try CommandFailure.requireReadable(caFile, as: "CA file", hint: caHint)
        if let clientIdentity {
            try CommandFailure.requireReadable(clientIdentity.certificateFile, as: "client certificate")
            try CommandFailure.requireReadable(clientIdentity.keyFile, as: "client key")
        }
        let tls = TLSClientConfiguration(
            trustRootsFile: caFile,
            certificateChainFile: clientIdentity?.certificateFile,
            privateKeyFile: clientIdentity?.keyFile
        )
        do {
            return try H2Client(tls: tls)
        } catch {
            throw CommandFailure("cannot set up TLS with these files: \(error)")
        }
    }

    /// Closes gracefully (GOAWAY) and waits briefly for it, so stopping the client's loop does not leave the
    /// socket open for the server to time out.
    private static func close(_ connection: H2ClientConnection) async {
        connection.close()
        let deadline = ContinuousClock.now + .seconds(1)
        while !connection.isClosed && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The transport dials numeric addresses only; names from `--url` are resolved here, preferring IPv4 the way
    /// the emulator's default loopback bind is reachable.
    static func numericAddress(for host: String) throws -> String {
        var probe = in6_addr()
        if host == "localhost" || inet_pton(AF_INET, host, &probe) == 1 || inet_pton(AF_INET6, host, &probe) == 1 {
            return host
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw CommandFailure("cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var candidates: [(family: Int32, text: String)] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let text = numericText(of: current.pointee) { candidates.append((current.pointee.ai_family, text)) }
            entry = current.pointee.ai_next
        }
        guard let chosen = candidates.first(where: { $0.family == AF_INET }) ?? candidates.first else {
            throw CommandFailure("cannot resolve '\(host)': no IPv4 or IPv6 address")
        }
        return chosen.text
    }

    private static func numericText(of info: addrinfo) -> String? {
        guard let address = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted: UnsafePointer<CChar>?
        switch info.ai_family {
        case AF_INET:
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            converted = inet_ntop(AF_INET, &ipv4, &buffer, socklen_t(buffer.count))
        case AF_INET6:
            var ipv6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            converted = inet_ntop(AF_INET6, &ipv6, &buffer, socklen_t(buffer.count))
        default:
            return nil
        }
        guard converted != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
