import NIOCore

extension ConnectionHandler {
    /// When the client has closed its side while a render is awaited, cancels the render and closes the connection,
    /// returning `true`. Like nginx, which takes a client's end of input during a proxied request for the client going
    /// away (its 499): a render costs seconds of a render thread and its memory, so it is not finished for a client
    /// that most likely left (a browser navigating away closes the socket); a client that only half-closed would have
    /// to ask again.
    @discardableResult
    func abandonRender(context: ChannelHandlerContext) -> Bool {
        guard state.inputClosed, let render = state.awaited?.render else { return false }
        render.cancel()
        closeAfterWrites(context: context)
        return true
    }
}
