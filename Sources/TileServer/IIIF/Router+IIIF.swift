import NIOCore
import NIOHTTP1

extension Router {
    /// Answers a request under `/iiif/`: the IIIF Image API 3.0 service (base URI, image information, images, and
    /// CORS preflight, see ``preflightResponse(_:exchange:)``); other versions' paths get its 404.
    func respondIIIF(to head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel) -> Response {
        let route: IIIFRoute
        do {
            route = try IIIFRoute(uri: head.uri, maxPathBytes: services.configuration.maxPathBytes)
        } catch {
            return .error(error)
        }
        switch route {
        case .unknown:
            return .error(.notFound("nothing at \(head.uri); IIIF requests are /iiif/3/{id}/…"))
        case .base(let identifier), .info(let identifier):
            exchange.route = .iiifInfo
            guard let image = catalog.image(named: identifier) else { return .error(.notFound("no image named \(identifier)")) }
            if head.method == .OPTIONS {
                return preflightResponse(head, exchange: exchange)
            }
            return infoResponse(of: image, redirect: route == .base(identifier: identifier), head, channel: channel)
        case .image(let identifier, let region, let size, let rotation, let qualityAndFormat):
            exchange.route = .iiifImage
            guard let image = catalog.image(named: identifier) else { return .error(.notFound("no image named \(identifier)")) }
            if head.method == .OPTIONS {
                return preflightResponse(head, exchange: exchange)
            }
            let request: IIIFImageRequest
            do {
                request = try IIIFImageRequest(
                    region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat, imageWidth: image.pyramid.width,
                    imageHeight: image.pyramid.height, limits: services.configuration.iiif.limits)
            } catch {
                return .error(error)
            }
            return imageResponse(request, of: image, head: head, exchange: &exchange, channel: channel)
        }
    }

    /// The base URI (`redirect`: 303 to info.json) or info.json itself, as JSON-LD or JSON as negotiated.
    private func infoResponse(of image: CatalogImage, redirect: Bool, _ head: HTTPRequestHead, channel: any Channel) -> Response {
        var idBuffer = channel.allocator.buffer(capacity: 128)
        writeID(of: image, head, into: &idBuffer, channel: channel)
        let id = String(buffer: idBuffer)
        if redirect {
            return .body(
                status: .seeOther, headerLines: services.blocks.empty.headerLines,
                extraHeaders: "Location: \(id)/info.json\r\n" + (hostVary.map { "Vary: \($0)\r\n" } ?? ""),
                body: ByteBuffer())
        }
        let headers = head.headers
        let type = IIIFMediaType.negotiate(accept: headers.contains(name: "accept") ? headers[canonicalForm: "accept"].joined(separator: ",") : nil)
        let json = IIIFInfo.json(
            id: id, pyramid: image.pyramid, tileFormat: IIIFFormat(tileExtension: image.descriptor.format),
            limits: services.configuration.iiif.limits)
        return .body(
            status: .ok, headerLines: (type == .jsonLD ? services.blocks.iiifInfoJSONLD : services.blocks.iiifInfoJSON).headerLines,
            extraHeaders: "Vary: Accept\(hostVary.map { ", " + $0 } ?? "")\r\nLink: <\(IIIFInfo.profileDocument)>;rel=\"profile\"\r\n",
            body: ByteBuffer(string: json))
    }

    /// The `Vary` list of answers that hold an IIIF id (see ``IIIFConfiguration/hostVary``).
    var hostVary: String? { services.configuration.iiif.hostVary }

    /// Writes `image`'s IIIF id, its base URI: the service's base URL — the configured public URL, else (with
    /// `--trust-proxy`) what the proxy forwards (``ForwardedBase``), else `http://` and the request's `Host` (when it
    /// is a valid `host[:port]`), else the address the connection arrived at — then `/iiif/3/` and the
    /// percent-encoded name. Unless the public URL is configured, such answers carry ``hostVary``.
    func writeID(of image: CatalogImage, _ head: HTTPRequestHead, into buffer: inout ByteBuffer, channel: any Channel) {
        if let configured = services.configuration.iiif.publicURL {
            buffer.writeString(configured)
        } else if services.configuration.iiif.trustProxy, let forwarded = ForwardedBase.of(head.headers) {
            buffer.writeString(forwarded)
        } else if let host = ForwardedBase.requestHost(head.headers) {
            buffer.writeStaticString("http://")
            buffer.writeSubstring(host)
        } else {
            let address = channel.localAddress
            let host = address?.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "127.0.0.1"
            buffer.writeString("http://\(host):\(address?.port ?? 80)")
        }
        buffer.writeStaticString("/iiif/3/")
        buffer.writeString(IIIFIdentifier.encode(image.name))
    }
}
