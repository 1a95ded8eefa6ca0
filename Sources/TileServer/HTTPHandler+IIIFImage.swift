import NIOCore

extension HTTPHandler {
    /// Answers a resolved IIIF image request: a stored tile's bytes when the request is exactly a tile (as cheap as
    /// a tile fetch), 304 when the client holds the rendered image already, else a render on the render pool (503
    /// with `Retry-After` when it is full). Every answer carries the canonical and profile `Link` header.
    func serveIIIFImage(_ request: IIIFImageRequest, of image: CatalogImage, id: String, exchange: Exchange, context: ChannelHandlerContext) {
        let link = "Link: <\(id)/\(request.canonicalParameters)>;rel=\"canonical\", <\(IIIFInfo.profileDocument)>;rel=\"profile\"\r\n"
        if let tile = request.storedTile(in: image.pyramid, tileFormat: IIIFFormat(tileExtension: image.descriptor.format)) {
            let key = TileKey(image: image.id, address: tile)
            if let file = server.tiles.cached(key) {
                return writeFile(
                    file, profile: image.tileProfile, cacheHeader: ByteBuffer(string: "X-Cache: hit\r\n" + link), exchange: exchange, context: context
                )
            }
            pending = exchange
            let loop = context.eventLoop
            let handler = NIOLoopBound(self, eventLoop: loop)
            server.tiles.load(key, of: image) { result in
                loop.execute {
                    handler.value.completePending(result, profile: image.tileProfile, cacheHeader: ByteBuffer(string: "X-Cache: miss\r\n" + link))
                }
            }
            return
        }
        let etag = IIIFResponses.etag(of: request, image: image)
        let profile = IIIFResponses.image(request.format)
        if let ifNoneMatch = exchange.ifNoneMatch, ETagMatch.matches(ifNoneMatch, etag: etag.utf8) {
            return writeFile(
                PreparedFile(bytes: [], etag: etag), profile: profile, cacheHeader: ByteBuffer(string: link), exchange: exchange, context: context)
        }
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let tiles = server.tiles
        let admitted = server.renders.submit { workspace in
            PreparedFile(bytes: try RegionRenderer(request: request, image: image, tiles: tiles, workspace: workspace).render(), etag: etag)
        } completion: { result in
            loop.execute { handler.value.completeRender(result, profile: profile, link: link) }
        }
        guard admitted else {
            let error = RequestError(status: .serviceUnavailable, message: "the server is busy rendering images; retry shortly")
            return writeError(error, exchange: exchange, extraHeaders: "Retry-After: 1\r\n", context: context)
        }
        pending = exchange
    }

    /// Writes the response of the pending render, then answers what queued up.
    private func completeRender(_ result: Result<PreparedFile, any Error>, profile: ResponseProfile, link: String) {
        guard let context, let exchange = pending else { return }
        pending = nil
        switch result {
        case .success(let file):
            writeFile(file, profile: profile, cacheHeader: ByteBuffer(string: link), exchange: exchange, context: context)
        case .failure(let error) where error is CancellationError:
            writeError(RequestError(status: .serviceUnavailable, message: "the server is shutting down"), exchange: exchange, context: context)
        case .failure(let error):
            server.configuration.logger.error("Rendering a IIIF image failed: \(error)")
            writeError(RequestError(status: .internalServerError, message: "the image could not be rendered"), exchange: exchange, context: context)
        }
        resume(context: context)
    }
}
