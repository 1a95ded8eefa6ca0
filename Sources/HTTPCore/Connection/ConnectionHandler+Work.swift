import NIOCore

extension ConnectionHandler {
    /// When the client has closed its side while work for its answer is awaited (a render), cancels the work and
    /// closes the connection, returning `true`. Like nginx, which takes a client's end of input during a proxied
    /// request for the client going away (its 499): a render costs seconds of a render thread and its memory, so it is
    /// not finished for a client that most likely left (a browser navigating away closes the socket); a client that
    /// only half-closed would have to ask again.
    @discardableResult
    package func abandonWork(context: ChannelHandlerContext) -> Bool {
        guard state.inputClosed, let work = state.awaited?.work else { return false }
        work.cancel()
        closeAfterWrites(context: context)
        return true
    }
}
