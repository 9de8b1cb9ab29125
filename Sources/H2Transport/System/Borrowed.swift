/// A reference held without a retain, used without one: the transport's per-request path reaches its
/// long-lived objects (the open stream, the loop's header encoder, the connection behind a responder)
/// through this type, where an ordinary reference cost a retain and a release per use.
///
/// Unchecked: whoever makes one guarantees something else holds the object strongly for as long as the
/// `Borrowed` may be used; each stored one says what that holder is. This is the only type above the C
/// callbacks that borrows references this way; nothing outside H2Transport sees it.
struct Borrowed<Object: AnyObject> {
    private let reference: Unmanaged<Object>

    @inline(__always)
    init(_ object: Object) { reference = .passUnretained(object) }

    /// The object behind an opaque pointer that was made from one (nghttp2's per-stream user data).
    @inline(__always)
    init(opaque: UnsafeMutableRawPointer) { reference = .fromOpaque(opaque) }

    /// Calls `body` with the object, neither retained nor released around the call.
    @inline(__always)
    func with<R>(_ body: (Object) throws -> R) rethrows -> R {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// The pointer C code carries for it.
    var opaque: UnsafeMutableRawPointer { reference.toOpaque() }

    /// Whether it is `object` (by identity).
    @inline(__always)
    func refers(to object: Object) -> Bool { reference.toOpaque() == Unmanaged.passUnretained(object).toOpaque() }

    /// A strong reference (a retain): for handing the object on.
    var strong: Object { reference.takeUnretainedValue() }
}
