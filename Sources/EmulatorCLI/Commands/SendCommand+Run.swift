import APNsProtocol
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import H2Transport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SendCommand {
    /// Mints the token, reads the payload, connects, sends, and returns the parsed response.
    ///
    /// Every failure becomes a `CommandFailure` naming what failed and where, since a bare "connect failed" on a CI
    /// log does not say whether the CA, the address or the server name was wrong.
    /// The environment the emulator at `control` registered `token` in, and that emulator's listener for it; nil
    /// when it cannot say (no emulator there, an unknown token): a lookup that fails changes nothing.
    static func route(of token: String, control: String) async -> (environment: APNsEnvironment, url: String)? {
        func get(_ path: String) async -> [String: Any]? {
            guard let url = URL(string: control + path) else { return nil }
            var request = URLRequest(url: url)
            request.timeoutInterval = 2
            guard let (data, response) = try? await URLSession.shared.data(for: request),
                  (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
            return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        }
        guard let record = await get("/_emulator/tokens/" + token.lowercased()),
              let environment = (record["environment"] as? String).flatMap(APNsEnvironment.init(rawValue:)),
              let endpoints = await get("/_emulator/endpoints"),
              let url = endpoints[environment == .sandbox ? "sandbox" : "production"] as? String else { return nil }
        return (environment, url)
    }

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
