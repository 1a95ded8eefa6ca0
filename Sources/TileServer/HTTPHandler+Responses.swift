import NIOCore

extension HTTPHandler {
    /// Answers with a prepared file: the profile's pre-encoded head, the cached `Date` line, an optional `X-Cache`
    /// line, then a slice of the file's buffer (headers and body, headers only for `HEAD`, or the `ETag` line
    /// alone for a 304). A handful of buffer writes, gathered into one `writev`; nothing formatted or copied.
    func writeFile(_ file: PreparedFile, profile: ResponseProfile, cacheHeader: ByteBuffer?, exchange: Exchange, context: ChannelHandlerContext) {
        let close = mustClose(exchange)
        let notModified = exchange.ifNoneMatch.map { ETagMatch.matches($0, etag: file.etag) } ?? false
        context.write(wrapOutboundOut(notModified ? profile.notModified : profile.ok), promise: nil)
        context.write(wrapOutboundOut(date.current()), promise: nil)
        if let cacheHeader {
            context.write(wrapOutboundOut(cacheHeader), promise: nil)
        }
        if close {
            context.write(wrapOutboundOut(server.blocks.connectionClose), promise: nil)
        } else if exchange.isHTTP10 {
            context.write(wrapOutboundOut(server.blocks.connectionKeepAlive), promise: nil)
        }
        if notModified {
            context.write(wrapOutboundOut(file.etagLine), promise: nil)
            context.write(wrapOutboundOut(server.blocks.crlf), promise: nil)
        } else {
            context.write(wrapOutboundOut(exchange.isHead ? file.head : file.buffer), promise: nil)
        }
        finish(exchange, status: notModified ? .notModified : .ok, close: close, context: context)
    }

    /// Answers 200 with `body` and the profile's headers.
    func writeBody(_ body: ByteBuffer, profile: ResponseProfile, exchange: Exchange, context: ChannelHandlerContext) {
        writeResponse(
            status: .ok, headerLines: profile.headerLines, extraHeaders: "", body: body, exchange: exchange, forceClose: false,
            context: context)
    }

    /// Answers `error` with its status and a JSON body `{"error":"…","status":N}`.
    func writeError(
        _ error: RequestError, exchange: Exchange, extraHeaders: String = "", forceClose: Bool = false, context: ChannelHandlerContext
    ) {
        writeResponse(
            status: error.status, headerLines: server.blocks.jsonNoStore.headerLines, extraHeaders: extraHeaders,
            body: ByteBuffer(string: JSONText.error(error)), exchange: exchange, forceClose: forceClose, context: context)
    }

    /// Answers a request the decoder could not parse, then closes the connection.
    func answerMalformed(_ error: RequestError, context: ChannelHandlerContext) {
        writeError(error, exchange: Exchange(malformedAt: .now()), forceClose: true, context: context)
    }

    /// Answers `status` with the given header lines, extra header lines (each ending in CRLF) and `body`.
    func writeResponse(
        status: HTTPStatus, headerLines: ByteBuffer, extraHeaders: String, body: ByteBuffer, exchange: Exchange, forceClose: Bool,
        context: ChannelHandlerContext
    ) {
        let close = forceClose || mustClose(exchange)
        var buffer = context.channel.allocator.buffer(capacity: 320 + extraHeaders.utf8.count + body.readableBytes)
        buffer.writeString(status.statusLine)
        buffer.writeImmutableBuffer(headerLines)
        buffer.writeImmutableBuffer(date.current())
        buffer.writeString("Content-Length: \(body.readableBytes)\r\n")
        buffer.writeString(extraHeaders)
        if close {
            buffer.writeImmutableBuffer(server.blocks.connectionClose)
        } else if exchange.isHTTP10 {
            buffer.writeImmutableBuffer(server.blocks.connectionKeepAlive)
        }
        buffer.writeStaticString("\r\n")
        if !exchange.isHead {
            buffer.writeImmutableBuffer(body)
        }
        context.write(wrapOutboundOut(buffer), promise: nil)
        finish(exchange, status: status, close: close, context: context)
    }
}
