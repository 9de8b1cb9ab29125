import APNsEmulator
import Foundation
import H2Transport

/// Reads merged across the replicas: each live replica is asked through its control API (this one in process)
/// and the answers put together, each item marked with its replica. A replica that does not answer is named in
/// `unreachable`, never silently left out.
extension ControlAPI {
    /// The views of one app a device call through any replica may read (`GET /cluster/devices/{id}/apps/{b}/{view}`).
    static let clusterAppViews: Set<String> = ["events", "calls", "forwards", "notifications", "sdk"]

    /// A live replica to ask, and where.
    private struct Peer {
        var id: String
        var controlURL: String?
        var deviceIds: [String]
    }

    private func livePeers() throws -> [Peer] {
        try clusterReplicas(try requireShared()).filter { $0.state == "running" }.map {
            Peer(id: $0.id, controlURL: $0.report?.controlURL, deviceIds: $0.report?.deviceIds ?? [])
        }
    }

    /// `call` answered by `peer`: in process when it is this replica, over HTTP otherwise.
    private func ask(_ peer: Peer, _ call: ClusterPeerCall) throws(ClusterPeerCall.Failure) -> (status: Int, body: [UInt8]) {
        if peer.id == services.configuration.replicaId {
            var headers: [H2Header] = []
            if let authorization = call.authorization { headers.append(H2Header("authorization", authorization)) }
            let answer = handle(HTTP1Request(method: call.method, path: call.path, query: call.query, headers: headers,
                                             body: call.body))
            return (answer.status, answer.body)
        }
        guard let url = peer.controlURL else { throw .unreachable(peer.id, "its reports carry no control URL yet") }
        let answer = try call.send(to: url)
        return (answer.status, answer.body)
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
        for peer in try livePeers() {
            do {
                let answer = try ask(peer, call)
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
            } catch {
                unreachable.append(["replica": peer.id, "error": error.description])
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

    /// The replica holding device `id` and its view of it: the replica whose report lists it, else the first
    /// live replica that knows it (reports list up to 1,000 ids each).
    func locateDevice(_ id: String, authorization: String?) throws -> (peer: String, device: [String: Any])? {
        let peers = try livePeers()
        let listed = peers.filter { $0.deviceIds.contains(id) }
        let probe = ClusterPeerCall(method: "GET", path: "/_emulator/devices/\(id)", authorization: authorization)
        for peer in listed + peers.filter({ !$0.deviceIds.contains(id) }) {
            guard let answer = try? ask(peer, probe), answer.status == 200,
                  let device = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            else { continue }
            return (peer.id, device)
        }
        return nil
    }

    /// `GET /cluster/devices/{id}/apps/{bundleId}/{view}`: the app's events, calls, forwards, notification centre
    /// or SDK state, from whichever replica holds the device, as that replica answers it.
    func readClusterDeviceApp(_ request: ControlRequest) throws -> HTTP1Response {
        let id = request.parameter("deviceId"), bundle = request.parameter("bundleId"), view = request.parameter("view")
        guard Self.clusterAppViews.contains(view) else {
            throw ControlAPIError.notFound("no app view '\(view)': one of \(Self.clusterAppViews.sorted().joined(separator: ", "))")
        }
        let authorization = request.http.header("authorization")
        guard let (holder, _) = try locateDevice(id, authorization: authorization) else {
            throw ControlAPIError.notFound("no live replica holds a device '\(id)'")
        }
        let peer = try livePeers().first { $0.id == holder }
        guard let peer else { throw ControlAPIError.notFound("no live replica holds a device '\(id)'") }
        let call = ClusterPeerCall(method: "GET", path: "/_emulator/devices/\(id)/apps/\(bundle)/\(view)",
                                   query: request.http.query, authorization: authorization)
        do {
            let answer = try ask(peer, call)
            return HTTP1Response(status: answer.status, headers: [H2Header("content-type", "application/json"),
                                                                  H2Header("x-apns-emulator-replica", peer.id)],
                                 body: answer.body)
        } catch {
            throw ControlAPIError.unavailable("replica \(peer.id) holds device '\(id)' but \(error.description)")
        }
    }

    static func rawJSON(_ object: [String: Any]) throws -> HTTP1Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return HTTP1Response(status: 200, headers: [H2Header("content-type", "application/json")], body: Array(data))
    }
}
