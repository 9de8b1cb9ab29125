import CNGHTTP2

/// The nghttp2 callback tables, built once per role and shared by every session.
///
/// Every callback is a closure that captures nothing and recovers its connection through
/// `H2Connection.withConnection`; each only records into the connection and returns 0 (or
/// NGHTTP2_ERR_CALLBACK_FAILURE with the reason stored on the connection). Nothing throws across C.
enum NGHTTP2Callbacks {
    nonisolated(unsafe) static let shared: OpaquePointer = {
        var cbs: OpaquePointer? = nil
        precondition(nghttp2_session_callbacks_new(&cbs) == 0, "nghttp2_session_callbacks_new")
        let c = cbs!
        nghttp2_session_callbacks_set_on_begin_headers_callback(c) { _, frame, user in
            guard let frame, let user else { return 0 }
            return H2Connection.withConnection(user) { $0.onBeginHeaders(frame) }
        }
        nghttp2_session_callbacks_set_on_header_callback(c) { _, frame, name, namelen, value, valuelen, _, user in
            guard let frame, let user, let name, let value else { return 0 }
            return H2Connection.withConnection(user) { $0.onHeader(
                frame, name: UnsafeRawBufferPointer(start: name, count: namelen),
                value: UnsafeRawBufferPointer(start: value, count: valuelen)) }
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c) { _, _, streamID, data, len, user in
            guard let user, let data else { return 0 }
            return H2Connection.withConnection(user) { $0.onData(streamID: streamID, UnsafeRawBufferPointer(start: data, count: len)) }
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(c) { _, frame, user in
            guard let frame, let user else { return 0 }
            return H2Connection.withConnection(user) { $0.onFrameReceived(frame) }
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(c) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            return H2Connection.withConnection(user) { $0.onStreamClose(streamID: streamID, errorCode: errorCode) }
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(c) { _, frame, code, user in
            guard let frame, let user else { return 0 }
            return H2Connection.withConnection(user) { $0.onFrameNotSent(frame, errorCode: code) }
        }
        return c
    }()

    /// Session options shared by both roles.
    nonisolated(unsafe) static let options: OpaquePointer = {
        var opt: OpaquePointer? = nil
        precondition(nghttp2_option_new(&opt) == 0, "nghttp2_option_new")
        // Closed streams stay known to nghttp2 (as nghttpd's do), so a frame on a stream the peer reset or
        // closed is answered with STREAM_CLOSED (RFC 9113 §5.1) instead of ignored. Their user data is cleared
        // as they close (`H2ServerConnection.onStreamClose`).
        return opt!
    }()

    /// Reads a response or request body out of the stream's `OutgoingBody` (the data source pointer).
    static let bodyReader: nghttp2_data_source_read_callback = { _, _, buf, length, flags, source, _ in
        guard let buf, let flags, let source, let ptr = source.pointee.ptr else { return 0 }
        let body = Unmanaged<OutgoingBody>.fromOpaque(ptr).takeUnretainedValue()
        let n = body.read(into: UnsafeMutableRawBufferPointer(start: buf, count: length))
        if body.isFinished { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return n
    }
}

/// A body being sent, read by nghttp2 in frame-sized pieces; owned by its stream until the stream closes.
final class OutgoingBody {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isFinished: Bool { offset >= bytes.count }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(buffer.count, bytes.count - offset)
        if n > 0 {
            bytes.withUnsafeBytes { raw in
                buffer.baseAddress!.copyMemory(from: raw.baseAddress! + offset, byteCount: n)
            }
            offset += n
        }
        return n
    }
}
