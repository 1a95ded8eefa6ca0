import NIOCore

extension Response {
    /// This response made final for `exchange`: the one place where conditional requests (304), ranges (206, 416),
    /// `HEAD`, the CORS origin line and the connection's fate are decided, the same way for tiles, files, JSON, IIIF
    /// renders and event streams. `closing`: the connection must close after this answer (the client asked, or shutdown). `nil`
    /// for ``later`` (the answer comes through the connection's delivery), and when a deferred answer started work
    /// that will deliver it — then `exchange` holds that work (its render), so that the connection can cancel it.
    ///
    /// - Complexity: O(1) for tiles and files, besides the `If-None-Match` and `Range` headers' lengths.
    package consuming func settled(for exchange: inout Exchange, closing: Bool, blocks: HTTPBlocks) -> SettledResponse? {
        let allow = blocks.cors.allowLine(for: exchange.origin)
        switch self {
        case .file(let file, let profile, let extraHeaders):
            return Self.settleFile(
                etag: file.etag, etagLine: file.etagLine, head: file.head, size: file.bodyLength, body: { .bytes(file.bodySlice($0)) },
                profile: profile, routeLines: extraHeaders, reservation: nil, exchange: exchange, closing: closing, allow: allow, blocks: blocks)
        case .rendered(let file, let profile, let extraHeaders, let reservation):
            return Self.settleFile(
                etag: file.etag, etagLine: file.etagLine, head: file.head, size: file.bodyLength, body: { .bytes(file.bodySlice($0)) },
                profile: profile, routeLines: extraHeaders, reservation: reservation, exchange: exchange, closing: closing, allow: allow,
                blocks: blocks)
        case .openFile(let file, let profile, let extraHeaders):
            return Self.settleFile(
                etag: file.etag, etagLine: file.etagLine, head: file.head, size: file.size, body: { .region(file, $0) }, profile: profile,
                routeLines: extraHeaders, reservation: nil, exchange: exchange, closing: closing, allow: allow, blocks: blocks)
        case .deferred(let etag, let profile, let extraHeaders, let start):
            if let ifNoneMatch = exchange.ifNoneMatch, ETagMatch.matches(ifNoneMatch, etag: etag.utf8) {
                return SettledResponse(
                    status: .notModified, lead: profile.notModified, fixedLines: nil, routeLines: extraHeaders, routeText: "",
                    allowOrigin: allow, close: closing, tail: .lines(ByteBuffer(string: "ETag: \(etag)\r\n"), blankLine: true), body: .none,
                    bodyBytes: 0, reservation: nil)
            }
            if exchange.isHead {
                // The head without rendering: no `Content-Length`, only encoding would tell it.
                return SettledResponse(
                    status: .ok, lead: profile.ok, fixedLines: nil, routeLines: extraHeaders, routeText: "", allowOrigin: allow, close: closing,
                    tail: .lines(ByteBuffer(string: "ETag: \(etag)\r\n"), blankLine: true), body: .none, bodyBytes: 0, reservation: nil)
            }
            let (started, render) = start()
            exchange.work = render
            return started.settled(for: &exchange, closing: closing, blocks: blocks)
        case .body(let status, let headerLines, let extraHeaders, let body):
            return SettledResponse(
                status: status, lead: blocks.statusLine(status), fixedLines: headerLines, routeLines: nil, routeText: extraHeaders,
                allowOrigin: allow, close: closing, tail: .length(body.readableBytes), body: exchange.isHead ? .none : .bytes(body),
                bodyBytes: exchange.isHead ? 0 : body.readableBytes, reservation: nil)
        case .error(let error, let extraHeaders, let close):
            return Response.body(
                status: error.status, headerLines: blocks.jsonNoStore.headerLines, extraHeaders: extraHeaders, body: ByteBuffer(string: error.json)
            )
            .settled(for: &exchange, closing: closing || close, blocks: blocks)
        case .events(let source):
            // No length: the body ends when the connection closes, after the source's last event.
            return SettledResponse(
                status: .ok, lead: blocks.eventStream, fixedLines: nil, routeLines: nil, routeText: "", allowOrigin: allow, close: true,
                tail: .lines(blocks.crlf, blankLine: false), body: exchange.isHead ? .none : .events(source), bodyBytes: 0, reservation: nil)
        case .later:
            return nil
        }
    }

    /// A file's answer: 304 when `If-None-Match` matches its entity tag; else for `GET` with a `Range` the range
    /// (206, or 416 past the end); else 200, with the body unless `HEAD`. The entity tag, the `ETag` line and the
    /// head are sliced only for the answers that use them.
    private static func settleFile(
        etag: @autoclosure () -> ByteBufferView, etagLine: @autoclosure () -> ByteBuffer, head: @autoclosure () -> ByteBuffer, size: Int,
        body: (Range<Int>) -> SettledResponse.Body,
        profile: ResponseProfile, routeLines: ByteBuffer?, reservation: (any BodyReservation)?, exchange: Exchange, closing: Bool,
        allow: ByteBuffer?, blocks: HTTPBlocks
    ) -> SettledResponse {
        let notModified = exchange.ifNoneMatch.map { ETagMatch.matches($0, etag: etag()) } ?? false
        if notModified || exchange.isHead {
            return SettledResponse(
                status: notModified ? .notModified : .ok, lead: notModified ? profile.notModified : profile.ok, fixedLines: nil,
                routeLines: routeLines, routeText: "", allowOrigin: allow, close: closing,
                tail: notModified ? .lines(etagLine(), blankLine: true) : .lines(head(), blankLine: false), body: .none, bodyBytes: 0,
                reservation: reservation)
        }
        let range = exchange.range.map { ByteRange.evaluate(range: $0, ifRange: exchange.ifRange, etag: etag(), size: size) } ?? .whole
        switch range {
        case .whole:
            return SettledResponse(
                status: .ok, lead: profile.ok, fixedLines: nil, routeLines: routeLines, routeText: "", allowOrigin: allow, close: closing,
                tail: .lines(head(), blankLine: false), body: size > 0 ? body(0..<size) : .none, bodyBytes: size, reservation: reservation)
        case .partial(let part):
            return SettledResponse(
                status: .partialContent, lead: blocks.statusLine(.partialContent), fixedLines: profile.headerLines, routeLines: routeLines,
                routeText: "", allowOrigin: allow, close: closing, tail: .partial(etagLine: etagLine(), range: part, size: size), body: body(part),
                bodyBytes: part.count, reservation: reservation)
        case .unsatisfiable:
            let error = RequestError(status: .rangeNotSatisfiable, message: "the range \(exchange.range ?? "") is outside the \(size)-byte file")
            let refusal = Response.error(error, extraHeaders: "Content-Range: bytes */\(size)\r\n", close: false)
            var copy = exchange
            reservation?.release()
            return refusal.settledRefusal(for: &copy, closing: closing, blocks: blocks)
        }
    }

    /// ``settled(for:closing:blocks:)`` of an ``error(_:extraHeaders:close:)``, which always settles.
    private consuming func settledRefusal(for exchange: inout Exchange, closing: Bool, blocks: HTTPBlocks) -> SettledResponse {
        settled(for: &exchange, closing: closing, blocks: blocks)!
    }
}
