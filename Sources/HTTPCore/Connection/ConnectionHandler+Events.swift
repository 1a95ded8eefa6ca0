import NIOCore

extension ConnectionHandler {
    /// Writes a source's event stream (``EventStream``): a `text/event-stream` head without a length (the body ends
    /// when the connection closes, after the source's last event), then an event per change. Later requests on the
    /// connection wait, as for any answer in progress, and are dropped when it closes.
    package func streamEvents(_ source: any EventSource, exchange: Exchange, context: ChannelHandlerContext) {
        var head = "HTTP/1.1 200 OK\r\nServer: tiler\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        head += "X-Accel-Buffering: no\r\n" + services.blocks.cors.fixedLines
        if let allow = services.blocks.cors.allowLine(for: exchange.origin) { head += String(buffer: allow) }
        head += "Connection: close\r\n\r\n"
        context.write(wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
        if exchange.isHead {
            return finish(exchange, status: .ok, bytes: 0, close: true, context: context)
        }
        awaitResponse(for: exchange, context: context)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        var sent = 0
        let stream = EventStream(source: source, loop: context.eventLoop) { bytes, last in
            let handler = handler.value
            guard let context = handler.context else { return }
            sent += bytes.readableBytes
            context.writeAndFlush(handler.wrapOutboundOut(bytes), promise: nil)
            if last {
                handler.events = nil
                _ = handler.state.responseArrived()
                handler.finish(exchange, status: .ok, bytes: sent, close: true, context: context)
            }
        }
        events = stream
        stream.start()
    }
}
