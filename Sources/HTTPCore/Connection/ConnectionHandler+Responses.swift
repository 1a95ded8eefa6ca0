import NIOCore

extension ConnectionHandler {
    /// Writes the route's `response` to `exchange`: settles it (``Response/settled(for:closing:blocks:)`` decides
    /// every HTTP question) and encodes the result. A ``Response/later`` answer, or a deferred one whose work
    /// started, makes the connection wait for it (it is written when it arrives).
    package func write(_ response: Response, for exchange: Exchange, context: ChannelHandlerContext) {
        if case .events(let source) = response { return streamEvents(source, exchange: exchange, context: context) }
        var exchange = exchange
        guard let settled = response.settled(for: &exchange, closing: mustClose(exchange), blocks: services.blocks) else {
            return awaitResponse(for: exchange, context: context)
        }
        encode(settled, exchange: exchange, context: context)
    }

    /// Answers a request the decoder could not parse, then closes the connection.
    package func answerMalformed(_ error: RequestError, context: ChannelHandlerContext) {
        writeError(error, exchange: Exchange(malformedAt: .now()), forceClose: true, context: context)
    }

    /// Answers `error` with its status and a JSON body `{"error":"…","status":N}`.
    package func writeError(
        _ error: RequestError, exchange: Exchange, extraHeaders: String = "", forceClose: Bool = false, context: ChannelHandlerContext
    ) {
        write(.error(error, extraHeaders: extraHeaders, close: forceClose), for: exchange, context: context)
    }

    /// Encodes `response`: its head into the connection's reused head buffer — the lead (status and fixed lines),
    /// the cached `Date` line, the route's lines, the CORS origin line, the connection line, the tail — then its body
    /// as it is (a buffer slice, or a file region with `sendfile` under `TCP_CORK`). At most two writes, gathered
    /// into one `writev`; the body is never copied. Then the exchange is finished (metrics, access log, close).
    private func encode(_ response: SettledResponse, exchange: Exchange, context: ChannelHandlerContext) {
        headScratch.clear()
        headScratch.writeImmutableBuffer(response.lead)
        if let fixed = response.fixedLines { headScratch.writeImmutableBuffer(fixed) }
        headScratch.writeImmutableBuffer(date.current())
        if let lines = response.routeLines { headScratch.writeImmutableBuffer(lines) }
        if !response.routeText.isEmpty { headScratch.writeString(response.routeText) }
        if let allow = response.allowOrigin { headScratch.writeImmutableBuffer(allow) }
        if response.close {
            headScratch.writeImmutableBuffer(services.blocks.connectionClose)
        } else if exchange.isHTTP10 {
            headScratch.writeImmutableBuffer(services.blocks.connectionKeepAlive)
        }
        switch response.tail {
        case .lines(let lines, let blankLine):
            headScratch.writeImmutableBuffer(lines)
            if blankLine { headScratch.writeImmutableBuffer(services.blocks.crlf) }
        case .partial(let etagLine, let range, let size):
            headScratch.writeImmutableBuffer(etagLine)
            headScratch.writeStaticString("Content-Range: bytes ")
            LoadedFile.writeNumber(range.lowerBound, radix: 10, into: &headScratch)
            headScratch.writeInteger(UInt8(ascii: "-"))
            LoadedFile.writeNumber(range.upperBound - 1, radix: 10, into: &headScratch)
            headScratch.writeInteger(UInt8(ascii: "/"))
            LoadedFile.writeNumber(size, radix: 10, into: &headScratch)
            headScratch.writeStaticString("\r\nContent-Length: ")
            LoadedFile.writeNumber(range.count, radix: 10, into: &headScratch)
            headScratch.writeStaticString("\r\n\r\n")
        case .length(let length):
            headScratch.writeStaticString("Content-Length: ")
            LoadedFile.writeNumber(length, radix: 10, into: &headScratch)
            headScratch.writeStaticString("\r\n\r\n")
        }
        var fileRange: Range<Int>?
        if case .region(let file, let range) = response.body {
            // Bytes sent before the file's (a TIFF's JPEG tile: SOI and its tables) travel with the head.
            let prefixLength = file.prefix.readableBytes
            if range.lowerBound < prefixLength {
                let end = min(range.upperBound, prefixLength)
                let part = file.prefix.getSlice(at: file.prefix.readerIndex + range.lowerBound, length: end - range.lowerBound)!
                headScratch.writeImmutableBuffer(part)
            }
            fileRange = max(range.lowerBound, prefixLength) - prefixLength..<max(range.upperBound, prefixLength) - prefixLength
        }
        context.write(wrapOutboundOut(headScratch), promise: nil)
        let written = response.reservation.map { reservation in
            // The body's budget is given back once the socket has taken it, or when the write fails (closed).
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { _ in reservation.release() }
            return promise
        }
        switch response.body {
        case .none:
            written?.succeed()
        case .bytes(let body):
            context.write(wrapOutboundOut(body), promise: written)
        case .region(let file, _):
            guard let range = fileRange, !range.isEmpty else {
                written?.succeed()
                break
            }
            cork(context: context)
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.assumeIsolated().whenComplete { result in
                withExtendedLifetime(file) {}
                switch result {
                case .success: written?.succeed()
                case .failure(let error): written?.fail(error)
                }
            }
            let region = FileRegion(fileHandle: file.handle, readerIndex: file.offset + range.lowerBound, endIndex: file.offset + range.upperBound)
            context.write(NIOAny(IOData.fileRegion(region)), promise: sent)
        }
        finish(exchange, status: response.status, bytes: response.bodyBytes, close: response.close, context: context)
    }
}
