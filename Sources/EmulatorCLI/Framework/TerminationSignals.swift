import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns SIGINT/SIGTERM into an awaitable event, so `serve` can shut down gracefully instead of dying mid-stream.
///
/// Dispatch signal sources rather than `sigaction` handlers: a handler may only call async-signal-safe functions,
/// while a source runs ordinary Swift on a queue. The signal's default action is set to ignore first, as
/// libdispatch requires, so the process is not killed before the source sees it.
public enum TerminationSignals {
    /// Suspends until one of `signals` arrives, then returns its number.
    ///
    /// After the first signal the default actions are restored, so a second Ctrl-C during a slow graceful shutdown
    /// kills the process the ordinary way; an operator who presses it twice means it.
    ///
    /// - Parameter signals: The signals that mean "stop"; SIGINT (Ctrl-C) and SIGTERM (`docker stop`) by default.
    public static func wait(for signals: [Int32] = [SIGINT, SIGTERM]) async -> Int32 {
        await withCheckedContinuation { continuation in
            SignalWaiter(signals: signals, continuation: continuation).start()
        }
    }
}

/// One wait's sources; the sources' handlers keep it alive until the first signal cancels them.
///
/// `@unchecked Sendable` because `continuation` and `sources` are only touched on `queue` (after `start`, which
/// runs before any source is resumed).
private final class SignalWaiter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "apns-emulator.signals")
    private let signals: [Int32]
    private var continuation: CheckedContinuation<Int32, Never>?  // protected by queue
    private var sources: [any DispatchSourceSignal] = []  // protected by queue

    init(signals: [Int32], continuation: CheckedContinuation<Int32, Never>) {
        self.signals = signals
        self.continuation = continuation
    }

    func start() {
        queue.sync {
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { self.deliver(number) }
                sources.append(source)
            }
            sources.forEach { $0.resume() }
        }
    }

    private func deliver(_ number: Int32) {
        guard let continuation else { return }
        self.continuation = nil
        for (source, signalNumber) in zip(sources, signals) {
            source.cancel()
            signal(signalNumber, SIG_DFL)
        }
        sources.removeAll()
        continuation.resume(returning: number)
    }
}
