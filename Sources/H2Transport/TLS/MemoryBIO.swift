import COpenSSL
import CShims

/// A BIO method whose reads come from the bytes the connection just read from its socket and whose writes
/// go to the connection's output buffer: OpenSSL never touches the fd (swift-nio-ssl's ByteBufferBIO).
///
/// The BIO's data pointer is an unretained `TLSSession`; the session frees its SSL (and so the BIO)
/// in its deinit, so the pointer never outlives its owner.
enum MemoryBIO {
    nonisolated(unsafe) static let method: OpaquePointer = {
        let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
        guard let m = BIO_meth_new(type, "h2transport-memory") else {
            preconditionFailure("BIO_meth_new failed")
        }
        BIO_meth_set_write(m) { bio, data, len in
            guard let bio, let data, len > 0 else { return 0 }
            let session = Unmanaged<TLSSession>.fromOpaque(BIO_get_data(bio)).takeUnretainedValue()
            session.bioWrite(UnsafeRawBufferPointer(start: data, count: Int(len)))
            return len
        }
        BIO_meth_set_read(m) { bio, data, len in
            guard let bio, let data, len > 0 else { return 0 }
            let session = Unmanaged<TLSSession>.fromOpaque(BIO_get_data(bio)).takeUnretainedValue()
            let n = session.bioRead(UnsafeMutableRawBufferPointer(start: data, count: Int(len)))
            CShims_BIO_clear_retry_flags(bio)
            if n == 0 {
                if session.peerClosed { return 0 }
                CShims_BIO_set_retry_read(bio)
                return -1
            }
            return Int32(n)
        }
        BIO_meth_set_ctrl(m) { _, cmd, _, _ in
            switch cmd {
            case BIO_CTRL_FLUSH: return 1
            default: return 0
            }
        }
        BIO_meth_set_create(m) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        BIO_meth_set_destroy(m) { _ in 1 }
        return m
    }()
}
