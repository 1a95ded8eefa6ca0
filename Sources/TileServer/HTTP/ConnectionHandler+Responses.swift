import NIOCore

extension ConnectionHandler {
    /// Writes `response` to `exchange`: the one place responses become bytes. A ``Response/later`` answer makes the
    /// connection wait for it (it is written when it arrives).
    func write(_ response: Response, for exchange: Exchange, context: ChannelHandlerContext) {
        switch response {
        case .file(let file, let profile, let extraHeaders):
            writeFile(file, profile: profile, cacheHeader: extraHeaders, exchange: exchange, context: context)
        case .openFile(let file, let profile, let extraHeaders):
            writeOpenTile(file, profile: profile, cacheHeader: extraHeaders, exchange: exchange, context: context)
        case .body(let status, let headerLines, let extraHeaders, let body):
            writeResponse(
                status: status, headerLines: headerLines, extraHeaders: extraHeaders, body: body, exchange: exchange, forceClose: false,
                context: context)
        case .error(let error, let extraHeaders, let close):
            writeError(error, exchange: exchange, extraHeaders: extraHeaders, forceClose: close, context: context)
        case .later:
            awaitResponse(for: exchange)
        }
    }

    /// Answers with a prepared file: the profile's pre-encoded head, the cached `Date` line and an optional
    /// `X-Cache` line, copied (a few hundred bytes) into the connection's reused head buffer, then the file's buffer
    /// as it is (headers and body); for `HEAD` or a 304 its header lines or `ETag` line go into the head buffer.
    /// At most two buffer writes, gathered into one `writev`; the body is never copied.
    private func writeFile(_ file: LoadedFile, profile: ResponseProfile, cacheHeader: ByteBuffer?, exchange: Exchange, context: ChannelHandlerContext)
    {
        let close = mustClose(exchange)
        let notModified = writeHead(
            profile: profile, etag: file.etag, etagLine: file.etagLine, headerLines: exchange.isHead ? file.head : nil,
            cacheHeader: cacheHeader, close: close, exchange: exchange)
        context.write(wrapOutboundOut(headScratch), promise: nil)
        if !notModified && !exchange.isHead {
            context.write(wrapOutboundOut(file.buffer), promise: nil)
        }
        finish(exchange, status: notModified ? .notModified : .ok, close: close, context: context)
    }

    /// Answers with an open tile file like ``writeFile(_:profile:cacheHeader:exchange:context:)``, the body sent from
    /// the file (`sendfile`); the file stays open until the write is done.
    private func writeOpenTile(
        _ file: OpenTile, profile: ResponseProfile, cacheHeader: ByteBuffer, exchange: Exchange, context: ChannelHandlerContext
    ) {
        let close = mustClose(exchange)
        let notModified = writeHead(
            profile: profile, etag: file.etag, etagLine: file.etagLine, headerLines: file.head, cacheHeader: cacheHeader, close: close,
            exchange: exchange)
        context.write(wrapOutboundOut(headScratch), promise: nil)
        if !notModified && !exchange.isHead && file.size > 0 {
            cork(context: context)
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in withExtendedLifetime(file) {} }
            let region = FileRegion(fileHandle: file.handle, readerIndex: 0, endIndex: file.size)
            context.write(NIOAny(IOData.fileRegion(region)), promise: written)
        }
        finish(exchange, status: notModified ? .notModified : .ok, close: close, context: context)
    }

    /// Writes a file's response head into the connection's reused head buffer: the profile's status line and header
    /// lines, the cached `Date` line, the optional `X-Cache` line and the connection line, then for a 304 (the
    /// request's `If-None-Match` matches `etag`) the `ETag` line and the blank line, else `headerLines` (the file's
    /// `ETag` and `Content-Length` lines and the blank line) if given. Returns whether it is a 304.
    private func writeHead(
        profile: ResponseProfile, etag: ByteBufferView, etagLine: ByteBuffer, headerLines: ByteBuffer?, cacheHeader: ByteBuffer?,
        close: Bool, exchange: Exchange
    ) -> Bool {
        let notModified = exchange.ifNoneMatch.map { ETagMatch.matches($0, etag: etag) } ?? false
        headScratch.clear()
        headScratch.writeImmutableBuffer(notModified ? profile.notModified : profile.ok)
        headScratch.writeImmutableBuffer(date.current())
        if let cacheHeader {
            headScratch.writeImmutableBuffer(cacheHeader)
        }
        if close {
            headScratch.writeImmutableBuffer(services.blocks.connectionClose)
        } else if exchange.isHTTP10 {
            headScratch.writeImmutableBuffer(services.blocks.connectionKeepAlive)
        }
        if notModified {
            headScratch.writeImmutableBuffer(etagLine)
            headScratch.writeImmutableBuffer(services.blocks.crlf)
        } else if let headerLines {
            headScratch.writeImmutableBuffer(headerLines)
        }
        return notModified
    }

    /// Answers `error` with its status and a JSON body `{"error":"…","status":N}`.
    func writeError(
        _ error: RequestError, exchange: Exchange, extraHeaders: String = "", forceClose: Bool = false, context: ChannelHandlerContext
    ) {
        writeResponse(
            status: error.status, headerLines: services.blocks.jsonNoStore.headerLines, extraHeaders: extraHeaders,
            body: ByteBuffer(string: error.json), exchange: exchange, forceClose: forceClose, context: context)
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
            buffer.writeImmutableBuffer(services.blocks.connectionClose)
        } else if exchange.isHTTP10 {
            buffer.writeImmutableBuffer(services.blocks.connectionKeepAlive)
        }
        buffer.writeStaticString("\r\n")
        if !exchange.isHead {
            buffer.writeImmutableBuffer(body)
        }
        context.write(wrapOutboundOut(buffer), promise: nil)
        finish(exchange, status: status, close: close, context: context)
    }
}
