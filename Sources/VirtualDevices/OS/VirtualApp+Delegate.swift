import APNsEmulator
import APNsProtocol

/// The app's own delegate between the OS and the plugin: which callbacks reach the plugin (the forwarding
/// table), what its script does with them (drop, delay, change arguments), and the trace of both.
extension VirtualApp {
    /// A callback the script forwards at `due`.
    struct DelayedForward: Sendable {
        var due: Millis
        var callback: OSCallback
    }

    /// Passes an OS callback through the app's delegates; the plugin acts only on what reaches it.
    mutating func deliverCallback(_ callback: OSCallback, _ ctx: OSContext) {
        if kits != nil, case .didRegister(let token) = callback { _ = kitsHandle(.didRegister(token: token), ctx) }
        let name = DelegateCallback(callback)
        if let why = DelegateForwarding.whyNot(callback, configuration: configuration.delegate,
                                               attachment: attachment.state) {
            trace(name, .notForwarded, code: why.code, reason: why.reason, ctx)
            return
        }
        let script = configuration.delegate.callbacks[name] ?? CallbackScript()
        if script.drop {
            trace(name, .dropped, ctx)
        } else if script.delayMillis > 0 {
            let due = ctx.now + script.delayMillis
            let at = delayedForwards.firstIndex { $0.due > due } ?? delayedForwards.endIndex
            delayedForwards.insert(DelayedForward(due: due, callback: callback), at: at)
            trace(name, .delayed, ctx)
        } else {
            forward(callback, script.arguments, ctx)
        }
    }

    /// The delegate calls the plugin's method, with the script's arguments.
    private mutating func forward(_ callback: OSCallback, _ arguments: ForwardedArguments, _ ctx: OSContext) {
        let name = DelegateCallback(callback)
        switch arguments.apply(to: callback) {
        case .failure(let null):
            trace(name, .threw, parameter: null.parameter, ctx)
        case .success(let changed):
            trace(name, .forwarded, ctx)
            perform(plugin.notify(changed), ctx)
        }
    }

    /// Time passed: delayed callbacks that are due reach the plugin, in due order.
    mutating func releaseDueForwards(_ ctx: OSContext) {
        while let first = delayedForwards.first, first.due <= ctx.now {
            delayedForwards.removeFirst()
            let script = configuration.delegate.callbacks[DelegateCallback(first.callback)] ?? CallbackScript()
            forward(first.callback, script.arguments, ctx)
        }
    }

    /// The process ended: what its delegate still held dies with it.
    mutating func abandonDelayedForwards(_ ctx: OSContext) {
        for held in delayedForwards {
            trace(DelegateCallback(held.callback), .abandoned, code: .processEnded, reason: "the app's process ended first",
                  ctx)
        }
        delayedForwards.removeAll()
    }

    private mutating func trace(_ callback: DelegateCallback, _ outcome: ForwardRecord.Outcome, parameter: String? = nil,
                                code: ForwardRecord.Code? = nil, reason: String? = nil, _ ctx: OSContext) {
        forwards.append(ForwardRecord(seq: takeSeq(), at: ctx.now, callback: callback, outcome: outcome,
                                      parameter: parameter, code: code, reason: reason))
        Self.trim(&forwards)
    }
}
