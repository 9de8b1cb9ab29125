import APNsEmulator
import Foundation
import H2Transport
import Synchronization

/// Reads merged across the replicas: each live replica is asked through its control API (this one in process)
/// and the answers put together, each item marked with its replica. A replica that does not answer is named in
/// `unreachable`, never silently left out.
extension ControlAPI {
    /// The views of one app a device call through any replica may read (`GET /cluster/devices/{id}/apps/{b}/{view}`).
    static let clusterAppViews: Set<String> = ["events", "calls", "forwards", "notifications", "sdk"]

    /// A live replica to ask, and where.
    struct Peer: Sendable {
        var id: String
        var controlURL: String?
        var deviceIds: [String]
    }

    /// The running replicas, this one always among them (its own first beat may not be in the store yet).
    private func livePeers() throws -> [Peer] {
        var peers = try clusterReplicas(try requireShared()).filter { $0.state == "running" }.map {
            Peer(id: $0.id, controlURL: $0.report?.controlURL, deviceIds: $0.report?.deviceIds ?? [])
        }
        let me = services.configuration.replicaId
        if !peers.contains(where: { $0.id == me }) { peers.append(Peer(id: me, controlURL: nil, deviceIds: [])) }
        return peers
    }

    typealias PeerAnswer = Result<(status: Int, body: [UInt8]), ClusterPeerCall.Failure>

    /// `call` asked of every peer at once (this replica in process, on this thread), all within one deadline:
    /// one slow replica costs the call at most `ClusterPeerCall.timeout`, not that times the replicas. Answers in
    /// the order of `peers`.
    private func askAll(_ peers: [Peer], _ call: ClusterPeerCall) -> [PeerAnswer] {
        let me = services.configuration.replicaId
        let answers = Mutex<[PeerAnswer?]>(Array(repeating: nil, count: peers.count))
        let group = DispatchGroup()
        for (index, peer) in peers.enumerated() where peer.id != me {
            group.enter()
            DispatchQueue.global().async {
                let answer: PeerAnswer
                if let url = peer.controlURL {
                    answer = Result { () throws(ClusterPeerCall.Failure) in
                        let reply = try call.send(to: url)
                        return (reply.status, reply.body)
                    }
                } else {
                    answer = .failure(.unreachable(peer.id, "its reports carry no control URL yet"))
                }
                answers.withLock { $0[index] = answer }
                group.leave()
            }
        }
        if let index = peers.firstIndex(where: { $0.id == me }) {
            var headers: [H2Header] = []
            if let authorization = call.authorization { headers.append(H2Header("authorization", authorization)) }
            let answer = handle(HTTP1Request(method: call.method, path: call.path, query: call.query, headers: headers,
                                             body: call.body))
            answers.withLock { $0[index] = .success((answer.status, answer.body)) }
        }
        _ = group.wait(timeout: .now() + ClusterPeerCall.timeout + 2)
        return answers.withLock { $0 }.enumerated().map { index, answer in
            answer ?? .failure(.unreachable(peers[index].id, "no answer within \(Int(ClusterPeerCall.timeout)) s"))
        }
    }

    /// `GET /cluster/devices` and `GET /cluster/deliveries`: `key`'s list from every live replica, each item with
    /// a `replica` field.
    func mergedList(_ request: ControlRequest, path: String, key: String, query: [(name: String, value: String)])
        throws -> HTTP1Response
    {
        var items: [Any] = []
        var unreachable: [[String: Any]] = []
        let call = ClusterPeerCall(method: "GET", path: path, query: query,
                                   authorization: request.http.header("authorization"))
        let peers = try livePeers()
        for (peer, answer) in zip(peers, askAll(peers, call)) {
            switch answer {
            case .failure(let failure):
                unreachable.append(["replica": peer.id, "error": failure.description])
            case .success(let answer):
                guard answer.status == 200,
                      let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                      let list = object[key] as? [[String: Any]]
                else {
                    unreachable.append(["replica": peer.id, "error": "answered \(answer.status): "
                                        + String(decoding: answer.body.prefix(300), as: UTF8.self)])
                    continue
                }
                for var item in list {
                    item["replica"] = peer.id
                    items.append(item)
                }
            }
        }
        return try Self.rawJSON([key: items, "unreachable": unreachable])
    }

    func listClusterDevices(_ request: ControlRequest) throws -> HTTP1Response {
        try QueryReader(request.http.query).finish()
        return try mergedList(request, path: "/_emulator/devices", key: "devices", query: [])
    }

    /// `GET /cluster/deliveries?apnsId=&deviceId=&bundleId=`: every replica's fates of pushes to its devices.
    func listClusterDeliveries(_ request: ControlRequest) throws -> HTTP1Response {
        var query = request.query
        var passed: [(name: String, value: String)] = []
        for name in ["apnsId", "deviceId", "bundleId"] {
            if let value = query.string(name) { passed.append((name, value)) }
        }
        try query.finish()
        return try mergedList(request, path: "/_emulator/deliveries", key: "deliveries", query: passed)
    }

    /// The replica holding device `id` and its view of it: the replicas whose reports list it are asked first
    /// (reports list up to 1,000 ids each), then the rest. Not found while a replica did not answer is 503
    /// naming it, never a 404 that may be wrong.
    func locateDevice(_ id: String, authorization: String?) throws -> (peer: Peer, device: [String: Any]) {
        let peers = try livePeers()
        let probe = ClusterPeerCall(method: "GET", path: "/_emulator/devices/\(id)", authorization: authorization)
        var failures: [String] = []
        // All at once, under one deadline; the replicas whose reports list the device are looked at first.
        let ordered = peers.filter { $0.deviceIds.contains(id) } + peers.filter { !$0.deviceIds.contains(id) }
        for (peer, answer) in zip(ordered, askAll(ordered, probe)) {
            switch answer {
            case .failure(let failure):
                failures.append(failure.description)
            case .success(let answer) where answer.status == 200:
                if let device = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] {
                    return (peer, device)
                }
                failures.append("replica \(peer.id) answered a device that is not a JSON object")
            case .success(let answer) where answer.status == 404:
                continue
            case .success(let answer):
                failures.append("replica \(peer.id) answered \(answer.status): "
                                + String(decoding: answer.body.prefix(300), as: UTF8.self))
            }
        }
        guard failures.isEmpty else {
            throw ControlAPIError.unavailable("no replica that answered holds a device '\(id)', and "
                                              + failures.joined(separator: "; "))
        }
        throw ControlAPIError.notFound("no live replica holds a device '\(id)'")
    }

    /// `GET /cluster/devices/{id}/apps/{bundleId}/{view}`: the app's events, calls, forwards, notification centre
    /// or SDK state, from whichever replica holds the device, as that replica answers it.
    func readClusterDeviceApp(_ request: ControlRequest) throws -> HTTP1Response {
        let id = request.parameter("deviceId"), bundle = request.parameter("bundleId"), view = request.parameter("view")
        guard Self.clusterAppViews.contains(view) else {
            throw ControlAPIError.notFound("no app view '\(view)': one of \(Self.clusterAppViews.sorted().joined(separator: ", "))")
        }
        let authorization = request.http.header("authorization")
        let (peer, _) = try locateDevice(id, authorization: authorization)
        let call = ClusterPeerCall(method: "GET", path: "/_emulator/devices/\(id)/apps/\(bundle)/\(view)",
                                   query: request.http.query, authorization: authorization)
        switch askAll([peer], call)[0] {
        case .success(let answer):
            return HTTP1Response(status: answer.status, headers: [H2Header("content-type", "application/json"),
                                                                  H2Header("x-apns-emulator-replica", peer.id)],
                                 body: answer.body)
        case .failure(let failure):
            throw ControlAPIError.unavailable("replica \(peer.id) holds device '\(id)' but \(failure.description)")
        }
    }

    static func rawJSON(_ object: [String: Any]) throws -> HTTP1Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return HTTP1Response(status: 200, headers: [H2Header("content-type", "application/json")], body: Array(data))
    }
}
