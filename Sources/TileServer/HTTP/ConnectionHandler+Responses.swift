import NIOCore

extension ConnectionHandler {
    /// Writes `response` to `exchange`: the one place responses become bytes. A ``Response/later`` answer makes the
    /// connection wait for it (it is written when it arrives).
    func write(_ response: Response, for exchange: Exchange, context: ChannelHandlerContext) {
        switch response {
        case .file(let file, let profile, let extraHeaders):
            writeFile(file, profile: profile, cacheHeader: extraHeaders, exchange: exchange, context: context)
        case .rendered(let file, let profile, let extraHeaders, let reservation):
            // The body's budget is given back once the socket has taken it, or when the write fails (closed).
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in reservation.release() }
            writeFile(file, profile: profile, cacheHeader: extraHeaders, exchange: exchange, written: written, context: context)
        case .openFile(let file, let profile, let extraHeaders):
            writeOpenTile(file, profile: profile, cacheHeader: extraHeaders, exchange: exchange, context: context)
        case .body(let status, let headerLines, let extraHeaders, let body):
            writeResponse(
                status: status, headerLines: headerLines, extraHeaders: extraHeaders, body: body, exchange: exchange, forceClose: false,
                context: context)
        case .error(let error, let extraHeaders, let close):
            writeError(error, exchange: exchange, extraHeaders: extraHeaders, forceClose: close, context: context)
        case .later:
            awaitResponse(for: exchange, context: context)
        }
    }

    /// Answers with a prepared file: the profile's pre-encoded head, the cached `Date` line and an optional
    /// `X-Cache` line, copied (a few hundred bytes) into the connection's reused head buffer, then the file's buffer
    /// as it is (headers and body); for `HEAD` or a 304 its header lines or `ETag` line go into the head buffer.
    /// At most two buffer writes, gathered into one `writev`; the body is never copied. A `Range` is answered with a
    /// slice of the body (``ByteRange``). `written`, if given, completes once the body has been written (at once when
    /// none is sent), or fails when the connection closes first.
    private func writeFile(
        _ file: LoadedFile, profile: ResponseProfile, cacheHeader: ByteBuffer?, exchange: Exchange, written: EventLoopPromise<Void>? = nil,
        context: ChannelHandlerContext
    ) {
        let close = mustClose(exchange)
        let notModified = isNotModified(exchange, etag: file.etag)
        switch byteRange(of: exchange, notModified: notModified, etag: file.etag, size: file.bodyLength) {
        case .whole:
            break
        case .partial(let range):
            writePartialHead(
                profile: profile, etagLine: file.etagLine, range: range, size: file.bodyLength, cacheHeader: cacheHeader, close: close,
                exchange: exchange)
            context.write(wrapOutboundOut(headScratch), promise: nil)
            let body = file.buffer.getSlice(at: file.buffer.readerIndex + file.bodyOffset + range.lowerBound, length: range.count)!
            context.write(wrapOutboundOut(body), promise: written)
            return finish(exchange, status: .partialContent, bytes: range.count, close: close, context: context)
        case .unsatisfiable:
            written?.succeed()
            return refuseRange(exchange, size: file.bodyLength, context: context)
        }
        writeHead(
            profile: profile, notModified: notModified, etagLine: file.etagLine, headerLines: exchange.isHead ? file.head : nil,
            cacheHeader: cacheHeader, close: close, exchange: exchange)
        context.write(wrapOutboundOut(headScratch), promise: nil)
        let sendsBody = !notModified && !exchange.isHead
        if sendsBody {
            context.write(wrapOutboundOut(file.buffer), promise: written)
        } else {
            written?.succeed()
        }
        finish(exchange, status: notModified ? .notModified : .ok, bytes: sendsBody ? file.bodyLength : 0, close: close, context: context)
    }

    /// Answers with an open tile file like ``writeFile(_:profile:cacheHeader:exchange:context:)``, the body (or the
    /// range asked for) sent from the file (`sendfile` with an offset); the file stays open until the write is done.
    private func writeOpenTile(
        _ file: OpenTile, profile: ResponseProfile, cacheHeader: ByteBuffer, exchange: Exchange, context: ChannelHandlerContext
    ) {
        let close = mustClose(exchange)
        let notModified = isNotModified(exchange, etag: file.etag)
        var sent = 0..<file.size
        var status = HTTPStatus.ok
        switch byteRange(of: exchange, notModified: notModified, etag: file.etag, size: file.size) {
        case .whole:
            writeHead(
                profile: profile, notModified: notModified, etagLine: file.etagLine, headerLines: file.head, cacheHeader: cacheHeader, close: close,
                exchange: exchange)
            if notModified || exchange.isHead {
                sent = 0..<0
                status = notModified ? .notModified : .ok
            }
        case .partial(let range):
            writePartialHead(
                profile: profile, etagLine: file.etagLine, range: range, size: file.size, cacheHeader: cacheHeader, close: close, exchange: exchange)
            sent = range
            status = .partialContent
        case .unsatisfiable:
            return refuseRange(exchange, size: file.size, context: context)
        }
        context.write(wrapOutboundOut(headScratch), promise: nil)
        if !sent.isEmpty {
            cork(context: context)
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.assumeIsolated().whenComplete { _ in withExtendedLifetime(file) {} }
            let region = FileRegion(fileHandle: file.handle, readerIndex: sent.lowerBound, endIndex: sent.upperBound)
            context.write(NIOAny(IOData.fileRegion(region)), promise: written)
        }
        finish(exchange, status: status, bytes: sent.count, close: close, context: context)
    }

    /// Whether the request's `If-None-Match` matches `etag` (a 304).
    private func isNotModified(_ exchange: Exchange, etag: ByteBufferView) -> Bool {
        exchange.ifNoneMatch.map { ETagMatch.matches($0, etag: etag) } ?? false
    }

    /// The part of a file of `size` bytes to send: ranges apply to `GET` answers with a body (not `HEAD`, not 304).
    private func byteRange(of exchange: Exchange, notModified: Bool, etag: ByteBufferView, size: Int) -> ByteRange {
        guard exchange.range != nil, !notModified, !exchange.isHead else { return .whole }
        return ByteRange.evaluate(range: exchange.range, ifRange: exchange.ifRange, etag: etag, size: size)
    }

    /// 416 for a range past the end of a file of `size` bytes, with `Content-Range: bytes */size`.
    private func refuseRange(_ exchange: Exchange, size: Int, context: ChannelHandlerContext) {
        let error = RequestError(status: .rangeNotSatisfiable, message: "the range \(exchange.range ?? "") is outside the \(size)-byte file")
        writeError(error, exchange: exchange, extraHeaders: "Content-Range: bytes */\(size)\r\n", context: context)
    }

    /// Writes a file's response head into the connection's reused head buffer: the profile's status line (304 when
    /// `notModified`) and header lines, the cached `Date` line, the optional `X-Cache` line, the CORS origin line
    /// and the connection line, then for a 304 the `ETag` line and the blank line, else `headerLines` (the file's
    /// `ETag` and `Content-Length` lines and the blank line) if given.
    private func writeHead(
        profile: ResponseProfile, notModified: Bool, etagLine: ByteBuffer, headerLines: ByteBuffer?, cacheHeader: ByteBuffer?,
        close: Bool, exchange: Exchange
    ) {
        headScratch.clear()
        headScratch.writeImmutableBuffer(notModified ? profile.notModified : profile.ok)
        writeCommonLines(cacheHeader: cacheHeader, close: close, exchange: exchange)
        if notModified {
            headScratch.writeImmutableBuffer(etagLine)
            headScratch.writeImmutableBuffer(services.blocks.crlf)
        } else if let headerLines {
            headScratch.writeImmutableBuffer(headerLines)
        }
    }

    /// Writes a 206 head for bytes `range` of a file of `size` bytes into the reused head buffer.
    private func writePartialHead(
        profile: ResponseProfile, etagLine: ByteBuffer, range: Range<Int>, size: Int, cacheHeader: ByteBuffer?, close: Bool, exchange: Exchange
    ) {
        headScratch.clear()
        headScratch.writeString(HTTPStatus.partialContent.statusLine)
        headScratch.writeImmutableBuffer(profile.headerLines)
        writeCommonLines(cacheHeader: cacheHeader, close: close, exchange: exchange)
        headScratch.writeImmutableBuffer(etagLine)
        headScratch.writeString("Content-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)\r\nContent-Length: \(range.count)\r\n\r\n")
    }

    /// The lines after a file's profile lines: `Date`, `X-Cache` (when given), the CORS origin line (when origins
    /// are listed and the request's is one) and the connection line.
    private func writeCommonLines(cacheHeader: ByteBuffer?, close: Bool, exchange: Exchange) {
        headScratch.writeImmutableBuffer(date.current())
        if let cacheHeader {
            headScratch.writeImmutableBuffer(cacheHeader)
        }
        if let allow = services.blocks.cors.allowLine(for: exchange.origin) {
            headScratch.writeImmutableBuffer(allow)
        }
        if close {
            headScratch.writeImmutableBuffer(services.blocks.connectionClose)
        } else if exchange.isHTTP10 {
            headScratch.writeImmutableBuffer(services.blocks.connectionKeepAlive)
        }
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
        if let allow = services.blocks.cors.allowLine(for: exchange.origin) {
            buffer.writeImmutableBuffer(allow)
        }
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
        finish(exchange, status: status, bytes: exchange.isHead ? 0 : body.readableBytes, close: close, context: context)
    }
}
