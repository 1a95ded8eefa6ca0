import HTTPCore
import NIOCore
import NIOHTTP1
import Rendering
import TileSources

extension Router {
    /// A resolved IIIF image request: a stored tile's bytes when the request is exactly a tile (as cheap as a tile
    /// fetch), else a rendered image. Every answer carries the canonical and profile `Link` header.
    func imageResponse(
        _ request: IIIFImageRequest, of image: CatalogImage, head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel,
        grant: AccessGrant
    ) -> Response {
        let tile = request.storedTile(in: image.pyramid, tileFormat: IIIFFormat(tileExtension: image.descriptor.format))
        let key = tile.map { TileKey(image: image.id, address: $0) }
        let cached = key.flatMap { tiles.cached($0) }
        // The header lines after the Date line: X-Cache for stored tiles, then the Link line, built in one buffer.
        var headers = channel.allocator.buffer(capacity: 256)
        if key != nil {
            headers.writeStaticString(cached == nil ? "X-Cache: miss\r\n" : "X-Cache: hit\r\n")
            exchange.cache = cached == nil ? .miss : .hit
        }
        headers.writeStaticString("Link: <")
        writeID(of: image, head, into: &headers, channel: channel)
        headers.writeStaticString("/")
        request.writeCanonicalParameters(into: &headers)
        headers.writeStaticString(">;rel=\"canonical\", <http://iiif.io/api/image/3/level2.json>;rel=\"profile\"\r\n")
        if let hostVary {
            headers.writeString("Vary: \(hostVary)\r\n")
        }
        var tileProfile = services.blocks.tile(format: image.descriptor.format, versioned: false)
        if !grant.isOpen {
            // A private image's stored tile: Cache-Control follows the grant, as for Deep Zoom tiles.
            tileProfile = services.blocks.privateTile(format: image.descriptor.format)
            headers.writeString(privateCacheControl(grant))
        }
        if let file = cached {
            return .file(file, profile: tileProfile, extraHeaders: headers)
        }
        if let key {
            return missResponse(key, of: image, profile: tileProfile, extraHeaders: headers, exchange: &exchange)
        }
        return renderResponse(request, of: image, headers: headers)
    }

    /// A request that is not a stored tile: an answer deferred until settling knows the body is wanted (not a 304,
    /// not `HEAD`, see ``Response/deferred(etag:profile:extraHeaders:start:)``); then a render on the render pool,
    /// once its estimated memory fits the render budget and the pool has room (else 503 with `Retry-After`).
    /// `headers` are the header lines to add (the `Link` line). The render is the exchange's, so that the connection
    /// cancels it when the client goes.
    private func renderResponse(_ request: IIIFImageRequest, of image: CatalogImage, headers: ByteBuffer) -> Response {
        let etag = IIIFResponses.etag(of: request, image: image)
        let profile = services.blocks.iiifImage(request.format)
        let services = self.services
        let deliver = self.deliver
        return .deferred(etag: etag, profile: profile, extraHeaders: headers) {
            let estimate = RegionRenderer.estimatedBytes(
                for: request, in: image.pyramid, tileFormat: IIIFFormat(tileExtension: image.descriptor.format))
            guard let reservation = services.renderBudget.reserve(estimate) else {
                return (Self.busy("the server's memory for rendering images is in use; retry shortly"), nil)
            }
            let store = services.tiles
            let failures = services.renderFailures
            let job = services.renders.submit { workspace, job in
                let bytes = try RegionRenderer(request: request, image: image, tiles: store, workspace: workspace, job: job).render()
                let file = LoadedFile(bytes: bytes, etag: etag)
                // The pixels are gone: from now on the body is what the render holds.
                reservation.resize(to: file.cost)
                return file
            } completion: { result in
                switch result {
                case .success(let file):
                    deliver(.rendered(file, profile: profile, extraHeaders: headers, reservation: reservation))
                case .failure(let error) where error is CancellationError:
                    reservation.release()
                    deliver(.error(RequestError(status: .serviceUnavailable, message: "the server is shutting down")))
                case .failure(let error):
                    reservation.release()
                    failures.note("Rendering a IIIF image of \(image.name) failed: \(error)", key: image.name)
                    deliver(.error(RequestError(status: .internalServerError, message: "the image could not be rendered")))
                }
            }
            guard let job else {
                reservation.release()
                return (Self.busy("the server is busy rendering images; retry shortly"), nil)
            }
            return (.later, job)
        }
    }

    /// 503 with `Retry-After: 1` and `message`, keeping the connection open.
    private static func busy(_ message: String) -> Response {
        .error(RequestError(status: .serviceUnavailable, message: message), extraHeaders: "Retry-After: 1\r\n", close: false)
    }
}
