import NIOCore
import NIOHTTP1

extension ConnectionHandler {
    /// Answers a resolved IIIF image request: a stored tile's bytes when the request is exactly a tile (as cheap as
    /// a tile fetch), else a rendered image. Every answer carries the canonical and profile `Link` header.
    func serveIIIFImage(
        _ request: IIIFImageRequest, of image: CatalogImage, requestHead: HTTPRequestHead, exchange: Exchange, context: ChannelHandlerContext
    ) {
        let tile = request.storedTile(in: image.pyramid, tileFormat: IIIFFormat(tileExtension: image.descriptor.format))
        let key = tile.map { TileKey(image: image.id, address: $0) }
        let cached = key.flatMap { server.tiles.cached($0) }
        // The header lines after the Date line: X-Cache for stored tiles, then the Link line, built in one buffer.
        var headers = context.channel.allocator.buffer(capacity: 256)
        if key != nil {
            headers.writeStaticString(cached == nil ? "X-Cache: miss\r\n" : "X-Cache: hit\r\n")
        }
        headers.writeStaticString("Link: <")
        writeID(of: image, requestHead, into: &headers, context: context)
        headers.writeStaticString("/")
        request.writeCanonicalParameters(into: &headers)
        headers.writeStaticString(">;rel=\"canonical\", <http://iiif.io/api/image/3/level2.json>;rel=\"profile\"\r\n")
        if let file = cached {
            return writeFile(file, profile: image.tileProfile, cacheHeader: headers, exchange: exchange, context: context)
        }
        if let key {
            return answerMiss(key, of: image, cacheHeader: headers, exchange: exchange, context: context)
        }
        render(request, of: image, headers: headers, exchange: exchange, context: context)
    }

    /// Answers a request that is not a stored tile: 304 if the client has it, else a render on the render pool (503
    /// with `Retry-After` when the pool is full). `headers` are the header lines to add (the `Link` line).
    private func render(
        _ request: IIIFImageRequest, of image: CatalogImage, headers: ByteBuffer, exchange: Exchange, context: ChannelHandlerContext
    ) {
        let etag = IIIFResponses.etag(of: request, image: image)
        let profile = IIIFResponses.image(request.format)
        if let ifNoneMatch = exchange.ifNoneMatch, ETagMatch.matches(ifNoneMatch, etag: etag.utf8) {
            return writeFile(
                LoadedFile(bytes: [], etag: etag), profile: profile, cacheHeader: headers, exchange: exchange, context: context)
        }
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let tiles = server.tiles
        let channel = context.channel
        let admitted = server.renders.submit { workspace in
            // A client that hung up while its render waited in the queue gets nothing: skip the work.
            guard channel.isActive else { throw CancellationError() }
            return LoadedFile(bytes: try RegionRenderer(request: request, image: image, tiles: tiles, workspace: workspace).render(), etag: etag)
        } completion: { result in
            loop.execute { handler.value.completeRender(result, profile: profile, headers: headers) }
        }
        guard admitted else {
            let error = RequestError(status: .serviceUnavailable, message: "the server is busy rendering images; retry shortly")
            return writeError(error, exchange: exchange, extraHeaders: "Retry-After: 1\r\n", context: context)
        }
        pending = exchange
    }

    /// Writes the response of the pending render, then answers what queued up.
    private func completeRender(_ result: Result<LoadedFile, any Error>, profile: ResponseProfile, headers: ByteBuffer) {
        guard let context, let exchange = pending else { return }
        pending = nil
        switch result {
        case .success(let file):
            writeFile(file, profile: profile, cacheHeader: headers, exchange: exchange, context: context)
        case .failure(let error) where error is CancellationError:
            writeError(RequestError(status: .serviceUnavailable, message: "the server is shutting down"), exchange: exchange, context: context)
        case .failure(let error):
            server.configuration.logger.error("Rendering a IIIF image failed: \(error)")
            writeError(RequestError(status: .internalServerError, message: "the image could not be rendered"), exchange: exchange, context: context)
        }
        resume(context: context)
    }
}
