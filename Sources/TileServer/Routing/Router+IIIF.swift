import HTTPCore
import NIOCore
import NIOHTTP1
import Rendering
import TileSources

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
        if route != .unknown && head.method == .OPTIONS && services.access != nil {
            // Under a policy, a preflight (which carries no credentials) is answered alike for every name.
            exchange.route = .iiifInfo
            return preflightResponse(head, exchange: exchange)
        }
        let rawQuery = head.uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { head.uri[head.uri.index(after: $0)...] } ?? ""
        let query = QueryString(text: rawQuery)
        let grant: AccessGrant
        switch authorize(route.accessSubject, query: rawQuery, exchange: exchange) {
        case .success(let allowed): grant = allowed
        case .failure(let refusal): return iiifRefusal(refusal, route: route, head: head, exchange: &exchange, channel: channel)
        }
        switch route {
        case .unknown:
            return .error(.notFound("nothing at \(head.uri); IIIF requests are /iiif/3/{id}/…"))
        case .accessToken:
            exchange.route = .iiifInfo
            return accessTokenResponse(query: query, exchange: exchange)
        case .probe(let identifier):
            exchange.route = .iiifInfo
            guard catalog.image(named: identifier) != nil else {
                guard !grant.isOpen else { return .error(.notFound("no image named \(identifier)")) }
                // Granted, but there is no such image: what the client would meet asking for it (the token may know).
                return .body(
                    status: .notFound, headerLines: services.blocks.jsonPrivate.headerLines, extraHeaders: "",
                    body: ByteBuffer(string: IIIFAuth.probeResult(status: 404)))
            }
            return .body(
                status: .ok, headerLines: services.blocks.jsonPrivate.headerLines, extraHeaders: "",
                body: ByteBuffer(string: IIIFAuth.probeResult(status: 200)))
        case .base(let identifier), .info(let identifier):
            exchange.route = .iiifInfo
            guard let image = catalog.image(named: identifier) else { return .error(.notFound("no image named \(identifier)")) }
            if head.method == .OPTIONS {
                return preflightResponse(head, exchange: exchange)
            }
            return infoResponse(of: image, redirect: route == .base(identifier: identifier), head, channel: channel, grant: grant)
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
            return imageResponse(request, of: image, head: head, exchange: &exchange, channel: channel, grant: grant)
        }
    }

    /// The base URI (`redirect`: 303 to info.json) or info.json itself, as JSON-LD or JSON as negotiated.
    private func infoResponse(of image: CatalogImage, redirect: Bool, _ head: HTTPRequestHead, channel: any Channel, grant: AccessGrant) -> Response {
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
            limits: services.configuration.iiif.limits, authBase: grant.isOpen ? nil : serviceBase(head, channel: channel),
            micronsPerPixel: image.facts.micronsPerPixel)
        let profile =
            grant.isOpen
            ? (type == .jsonLD ? services.blocks.iiifInfoJSONLD : services.blocks.iiifInfoJSON)
            : (type == .jsonLD ? services.blocks.iiifInfoJSONLDPrivate : services.blocks.iiifInfoJSONPrivate)
        return .body(
            status: .ok, headerLines: profile.headerLines,
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
        writeID(ofName: image.name, head, into: &buffer, channel: channel)
    }

    /// Writes the IIIF id of image name `name` (see ``writeID(of:_:into:channel:)``).
    func writeID(ofName name: String, _ head: HTTPRequestHead, into buffer: inout ByteBuffer, channel: any Channel) {
        writeBase(head, into: &buffer, channel: channel)
        buffer.writeStaticString("/iiif/3/")
        buffer.writeString(IIIFIdentifier.encode(name))
    }

    /// The service's base URL (as ``writeID(of:_:into:channel:)`` writes it), for the access token service's id.
    func serviceBase(_ head: HTTPRequestHead, channel: any Channel) -> String {
        var buffer = channel.allocator.buffer(capacity: 64)
        writeBase(head, into: &buffer, channel: channel)
        return String(buffer: buffer)
    }

    private func writeBase(_ head: HTTPRequestHead, into buffer: inout ByteBuffer, channel: any Channel) {
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
    }
}
