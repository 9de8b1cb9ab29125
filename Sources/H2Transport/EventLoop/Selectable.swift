/// Something registered with an event loop's epoll set: a listener or a connection.
///
/// Implementations are loop-confined classes; the loop calls them only on its own thread.
protocol Selectable: AnyObject {
    /// Called with the epoll event mask (EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP, EPOLLRDHUP).
    func handleEvent(_ events: UInt32)
    /// The loop is stopping: release the fd (connections close, listeners stop listening).
    func closeForLoopShutdown()
}

/// A connection that stopped reading early to stay fair to others and must be resumed on the next tick.
protocol ReadResumable: AnyObject {
    func resumeReading()
}

/// A connection whose output `EventLoop.coalescingWrites` holds back until its body ends.
protocol FlushDeferrable: AnyObject {
    func flushDeferred()
}
