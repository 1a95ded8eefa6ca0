import NIOCore
import NIOHTTP1
import TileGeometry

extension ConnectionHandler {
    /// Answers a complete `GET` or `HEAD` request: at once when it can, else later from ``completePending``.
    func respond(to requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        if IIIFRoute.claims(requestHead.uri.utf8) {
            return respondIIIF(to: requestHead, context: context)
        }
        respond(uri: requestHead.uri, exchange: Exchange(head: requestHead), context: context)
    }

    /// Answers a `GET` or `HEAD` request for `uri` (outside `/iiif/`).
    func respond(uri: String, exchange: Exchange, context: ChannelHandlerContext) {
        var exchange = exchange
        let target: RequestTarget
        do {
            target = try RequestTarget(uri, maxPathBytes: server.configuration.maxPathBytes)
        } catch {
            return writeError(error, exchange: exchange, context: context)
        }
        let route = Route(path: target.path)
        exchange.route = route.label
        let blocks = server.blocks
        switch route {
        case .tile(let name, let tile, let format):
            serveTile(name: name, tile: tile, format: format, exchange: exchange, context: context)
        case .descriptor(let name):
            guard let image = catalog.image(named: name) else {
                return writeError(.notFound("no image named \(name)"), exchange: exchange, context: context)
            }
            writeFile(image.descriptorFile, profile: blocks.descriptor, cacheHeader: nil, exchange: exchange, context: context)
        case .imageList:
            writeBody(server.catalog.listJSON, profile: blocks.json, exchange: exchange, context: context)
        case .visible(let name):
            serveVisible(name: name, query: QueryString(text: target.query), exchange: exchange, context: context)
        case .health:
            let count = server.catalog.count
            let body = ByteBuffer(
                string: JSONWriter.text { writer in
                    writer.openObject()
                    writer.member("status", "ok")
                    writer.member("images", count)
                    writer.closeObject()
                })
            writeBody(body, profile: blocks.jsonNoStore, exchange: exchange, context: context)
        case .metrics:
            let body = ByteBuffer(string: server.metrics.prometheusText(statistics: server.statistics))
            writeBody(body, profile: blocks.metrics, exchange: exchange, context: context)
        case .staticFile(let path):
            serveStatic(path: path, exchange: exchange, context: context)
        case .unknown(let path):
            writeError(.notFound("nothing at \(path)"), exchange: exchange, context: context)
        }
    }

    /// Answers a request whose method is neither `GET` nor `HEAD` with 405 and closes (without reading its body).
    func refuseMethod(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) {
        var exchange = Exchange(head: requestHead)
        if let target = try? RequestTarget(requestHead.uri, maxPathBytes: server.configuration.maxPathBytes) {
            exchange.route = Route(path: target.path).label
        }
        let error = RequestError(status: .methodNotAllowed, message: "method \(requestHead.method) is not allowed; use GET or HEAD")
        writeError(error, exchange: exchange, extraHeaders: "Allow: GET, HEAD\r\n", forceClose: true, context: context)
    }

    private func serveTile(name: Substring, tile: TileAddress, format: Substring, exchange: Exchange, context: ChannelHandlerContext) {
        guard let image = catalog.image(named: name) else {
            return writeError(.notFound("no image named \(name)"), exchange: exchange, context: context)
        }
        guard format == image.descriptor.format, image.contains(tile) else {
            let message = "\(image.name) has no tile \(tile.level)/\(tile.column)_\(tile.row).\(format)"
            return writeError(.notFound(message), exchange: exchange, context: context)
        }
        let key = TileKey(image: image.id, address: tile)
        if let file = server.tiles.cached(key) {
            return writeFile(file, profile: image.tileProfile, cacheHeader: server.blocks.cacheHit, exchange: exchange, context: context)
        }
        answerMiss(key, of: image, cacheHeader: server.blocks.cacheMiss, exchange: exchange, context: context)
    }

    /// Answers with tile `key` of `image`, which was not cached. When the cache is full and does not admit the tile
    /// (it was not asked for more often lately than the tile it would evict), the tile is answered from its open file
    /// without entering the cache: sent as it is (`sendfile`, nothing copied into the process) when `cachestat` says
    /// it is all in the page cache; where the kernel cannot tell (before Linux 6.5), read without waiting
    /// (`RWF_NOWAIT`) and sent. Otherwise the tile is read into the cache: at once when the store can read it without
    /// waiting (page cache), else once a file thread has, holding later requests back meanwhile.
    func answerMiss(_ key: TileKey, of image: CatalogImage, cacheHeader: ByteBuffer, exchange: Exchange, context: ChannelHandlerContext) {
        let file = openTiles.file(for: key, of: image, maxBytes: server.tiles.maxTileBytes)
        if let file, !server.tiles.cache.admits(key, cost: file.cost) {
            switch server.configuration.usesCachestat ? file.isInPageCache : nil {
            case true?:
                server.tiles.countFileSend()
                return writeOpenTile(file, profile: image.tileProfile, cacheHeader: cacheHeader, exchange: exchange, context: context)
            case nil:
                // Errors (a file changed while read) and a file not all in memory take the usual path below.
                if let read = try? file.readIfCached() {
                    server.tiles.countFileSend()
                    return writeFile(read, profile: image.tileProfile, cacheHeader: cacheHeader, exchange: exchange, context: context)
                }
            case false?:
                break
            }
        }
        pending = exchange
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let now = server.tiles.loadNow(key, of: image, opened: file) { result in
            loop.execute { handler.value.completePending(result, profile: image.tileProfile, cacheHeader: cacheHeader) }
        }
        if let now {
            pending = nil
            writeLoaded(now, profile: image.tileProfile, cacheHeader: cacheHeader, exchange: exchange, context: context)
        }
    }

    private func serveVisible(name: Substring, query: QueryString, exchange: Exchange, context: ChannelHandlerContext) {
        guard let image = catalog.image(named: name) else {
            return writeError(.notFound("no image named \(name)"), exchange: exchange, context: context)
        }
        let answer: VisibleTiles
        do throws(GeometryError) {
            let viewport = try Viewport(parameters: { query.value(named: $0) })
            answer = try image.pyramid.visibleTiles(in: viewport)
        } catch {
            return writeError(.badRequest(error.message), exchange: exchange, context: context)
        }
        let body = answer.json(tileURLPrefix: image.urlPrefix + "_files/", tileURLSuffix: "." + image.descriptor.format)
        warm(answer, of: image)
        writeBody(ByteBuffer(string: body), profile: server.blocks.json, exchange: exchange, context: context)
    }

    /// Marks the viewport's tiles most recently used (the centre one first) and loads the missing ones in the
    /// background, so the client's tile requests that follow hit memory and the tiles evicted are off-screen ones.
    private func warm(_ answer: VisibleTiles, of image: CatalogImage) {
        guard !answer.tiles.isEmpty else { return }
        let keys = answer.tiles.map { TileKey(image: image.id, address: TileAddress(level: $0.level, column: $0.column, row: $0.row)) }
        // When every tile is cached already (the steady state), there is nothing to warm.
        if server.tiles.cache.touch(keys) < keys.count {
            server.warmer.enqueue(keys, of: image)
        }
    }

    private func serveStatic(path: Substring, exchange: Exchange, context: ChannelHandlerContext) {
        guard let files = server.staticFiles else {
            return writeError(.notFound("no viewer installed (no Public/ folder)"), exchange: exchange, context: context)
        }
        let resolved: (path: String, profile: ResponseProfile)
        do {
            resolved = try files.resolve(path)
        } catch {
            return writeError(error, exchange: exchange, context: context)
        }
        pending = exchange
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        files.load(resolved.path) { result in
            loop.execute { handler.value.completePending(result, profile: resolved.profile, cacheHeader: nil) }
        }
    }

    /// Writes the response of the pending request once its file is read (or not), then answers what queued up.
    func completePending(_ result: Result<LoadedFile, any Error>, profile: ResponseProfile, cacheHeader: ByteBuffer?) {
        guard let context, let exchange = pending else { return }
        pending = nil
        writeLoaded(result, profile: profile, cacheHeader: cacheHeader, exchange: exchange, context: context)
        resume(context: context)
    }

    /// Writes the response to a file read (or not).
    func writeLoaded(
        _ result: Result<LoadedFile, any Error>, profile: ResponseProfile, cacheHeader: ByteBuffer?, exchange: Exchange,
        context: ChannelHandlerContext
    ) {
        switch result {
        case .success(let file):
            writeFile(file, profile: profile, cacheHeader: cacheHeader, exchange: exchange, context: context)
        case .failure(let error as FileLoadError) where error.kind != .unreadable:
            let what = exchange.route == .tile ? "tile not found" : "no such file"
            writeError(.notFound(what), exchange: exchange, context: context)
        case .failure(let error):
            server.configuration.logger.error("Reading a file failed: \(error)")
            let status: HTTPStatus = error is CancellationError ? .serviceUnavailable : .internalServerError
            writeError(RequestError(status: status, message: "the file could not be read"), exchange: exchange, context: context)
        }
    }
}
