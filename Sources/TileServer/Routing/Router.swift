import HTTPCore
import JSONText
import NIOCore
import NIOHTTP1
import TileGeometry
import TileSources

/// Answers requests with ``Response`` values: a function from a request (and the services it needs) to a response,
/// with no socket and no writing. One per connection; `catalog` and `openTiles` belong to the connection's event
/// loop, so the router is only used there.
///
/// Routes: the tiles, descriptors, image list and visible-rect query of the Deep Zoom service, `/healthz`,
/// `/metrics`, the viewer's files (here and in `Router+Tiles.swift`), and the IIIF Image API under `/iiif/`
/// (`Router+IIIF.swift`). Which requests are IIIF's is decided by one rule, ``IIIFRoute/claims(_:)``.
struct Router {
    /// What every connection shares: catalog, tile store, renders, viewer files, metrics.
    let services: Services
    /// The event loop's view of the catalog, for lookups without a lock shared with other loops.
    let catalog: CatalogView
    /// The tiles: cache, open files, reads (the event loop's).
    let tiles: TileLookup
    /// Where answers that come later (``Response/later``) go.
    let deliver: ResponseDelivery
    /// The signatures and tokens this connection has already verified (used only with an access policy).
    let memo = AccessMemo()

    /// Answers a complete `GET`, `HEAD` or `OPTIONS` (CORS preflight) request read by NIO's decoder.
    ///
    /// - Parameter channel: The connection (for IIIF ids built from its local address).
    func respond(to head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel) -> Response {
        if IIIFRoute.claims(head.uri.utf8) {
            return respondIIIF(to: head, exchange: &exchange, channel: channel)
        }
        if head.method == .OPTIONS {
            return preflight(head, exchange: &exchange)
        }
        if head.method == .DELETE {
            return delete(head, exchange: &exchange)
        }
        return respond(uri: head.uri, exchange: &exchange)
    }

    /// `uri` parsed and routed, the route's label recorded in `exchange`; a target refused (too long, malformed) is
    /// the error to answer.
    func routed(_ uri: String, exchange: inout Exchange) -> Result<(RequestTarget, Route), RequestError> {
        do {
            let target = try RequestTarget(uri, maxPathBytes: services.configuration.maxPathBytes)
            let route = Route(path: target.path)
            exchange.route = route.label
            return .success((target, route))
        } catch {
            return .failure(error)
        }
    }

    /// Answers a `GET` or `HEAD` request for `uri` (outside `/iiif/`), setting `exchange`'s route label.
    func respond(uri: String, exchange: inout Exchange) -> Response {
        let target: RequestTarget
        let route: Route
        switch routed(uri, exchange: &exchange) {
        case .success(let found): (target, route) = found
        case .failure(let error): return .error(error)
        }
        let grant: AccessGrant
        switch authorize(route.accessSubject, query: target.query, exchange: exchange) {
        case .success(let allowed): grant = allowed
        case .failure(let refusal): return refusal.response
        }
        switch route {
        case .tile(let name, let tile, let format):
            return tileResponse(name: name, tile: tile, format: format, grant: grant, exchange: &exchange)
        case .descriptor(let name):
            return descriptorResponse(name: name, grant: grant)
        case .imageList:
            return imageListResponse(query: QueryString(text: target.query), grant: grant)
        case .visible(let name):
            return visibleResponse(name: name, query: QueryString(text: target.query), grant: grant)
        case .properties(let name):
            return propertiesResponse(name: name)
        case .associated(let name, let kind):
            return associatedResponse(name: name, kind: kind)
        case .health:
            // Under a policy a count would tell anyone how many private images there are: the metrics listener has it.
            let body = Self.healthJSON(images: services.access == nil ? services.catalog.count : nil)
            return .ok(ByteBuffer(string: body), profile: services.blocks.jsonNoStore)
        case .metrics:
            guard services.access == nil else {
                return .error(.notFound("metrics are served on the metrics listener (--metrics-port) while an access policy is set"))
            }
            let body = services.metrics.prometheusText(statistics: services.statistics)
            return .ok(ByteBuffer(string: body), profile: services.blocks.metrics)
        case .staticFile(let path):
            return staticFileResponse(path: path, exchange: exchange)
        case .jobs, .job, .jobEvents:
            return jobResponse(route, query: target.query, exchange: exchange, isDelete: false)
        case .unknown(let path):
            return .error(.notFound("nothing at \(path)"))
        }
    }

    /// The `/healthz` answer: `{"status":"ok"}`, with the number of images served when it may be told.
    static func healthJSON(images: Int?) -> String {
        JSONWriter.text { writer in
            writer.openObject()
            writer.member("status", "ok")
            if let images { writer.member("images", images) }
            writer.closeObject()
        }
    }

    /// The methods the resource at `uri` takes (what its route says; `GET`, `HEAD` and `OPTIONS` for IIIF's and for a
    /// target that cannot be routed).
    func allowedMethods(uri: String) -> [HTTPMethod] {
        guard !IIIFRoute.claims(uri.utf8), let target = try? RequestTarget(uri, maxPathBytes: services.configuration.maxPathBytes) else {
            return [.GET, .HEAD, .OPTIONS]
        }
        return Route(path: target.path).allowedMethods
    }

    /// The route `head` would take (``RouteLabel/invalid`` when it cannot be routed; a `PUT` is an upload).
    func label(_ head: HTTPRequestHead) -> RouteLabel {
        head.method == .PUT ? .upload : pathLabel(head.uri)
    }

    /// The route of `uri`'s path (``RouteLabel/invalid`` when it cannot be routed).
    private func pathLabel(_ uri: String) -> RouteLabel {
        guard let target = try? RequestTarget(uri, maxPathBytes: services.configuration.maxPathBytes) else { return .invalid }
        return Route(path: target.path).label
    }

    /// Refuses a request whose method its resource does not take with 405 and `Allow` (what the resource takes),
    /// closing the connection (its body is never read); `exchange` gets the route the path would have had.
    func refuseMethod(_ head: HTTPRequestHead, exchange: inout Exchange, message: String? = nil) -> Response {
        exchange.route = pathLabel(head.uri)
        return .methodNotAllowed(head.method, allowed: allowedMethods(uri: head.uri), message: message)
    }

    /// The image list, whole or one page (``ImageListPage``), with `X-Total-Count` (and `Link` for pages). Made from
    /// the catalog's sorted snapshot: O(page) per page, the whole list built once per catalog change.
    private func imageListResponse(query: QueryString, grant: AccessGrant) -> Response {
        let page: ImageListPage?
        do {
            page = try ImageListPage(query: query)
        } catch {
            return .error(error)
        }
        if let policy = services.access {
            switch grant {
            case .list(let token):
                // A client that brought its token in the query (a link) keeps it on the pages it is pointed to.
                let carried = token == nil ? nil : query.value(named: "token").flatMap { ImageListPage.linkable(token: $0) }
                return filteredImageList(page: page, policy: policy, token: token, carrying: carried)
            case .listRefused(let refusal):
                return filteredImageList(page: page, policy: policy, token: nil, refused: refusal)
            case .open, .token, .signed:
                break
            }
        }
        let snapshot = services.catalog.current
        let total = snapshot.sorted.count
        guard let page else {
            let listed = withProvisional(snapshot.listJSON, count: total) { _ in true }
            return .body(
                status: .ok, headerLines: services.blocks.json.headerLines, extraHeaders: "X-Total-Count: \(listed.count)\r\n", body: listed.body)
        }
        return .body(
            status: .ok, headerLines: services.blocks.json.headerLines, extraHeaders: page.headerLines(total: total),
            body: snapshot.page(offset: page.offset, limit: page.limit))
    }

    private func visibleResponse(name: Substring, query: QueryString, grant: AccessGrant) -> Response {
        let image: CatalogImage
        switch lookup(name) {
        case .success(let found): image = found.image
        case .failure(let error): return provisionalVisibleResponse(name: name, query: query, grant: grant) ?? .error(error)
        }
        let answer: VisibleTiles
        do throws(GeometryError) {
            let viewport = try Viewport(parameters: { query.value(named: $0) })
            answer = try image.pyramid.visibleTiles(in: viewport)
        } catch {
            return .error(.badRequest(error.message))
        }
        let suffix = signedTiles(for: image, grant: grant)?.urlSuffix ?? "." + image.descriptor.format
        let json = answer.jsonWriter(tileURLPrefix: image.versionedPrefix + "_files/", tileURLSuffix: suffix)
        let body = json.withBytes { ByteBuffer(bytes: $0) }
        warm(answer, of: image, viewer: query.value(named: "viewer"))
        return .ok(body, profile: grant.isOpen ? services.blocks.json : services.blocks.jsonPrivate)
    }

    /// Marks the viewport's tiles most recently used (the centre one first) and loads the missing ones in the
    /// background, so the client's tile requests that follow hit memory and the tiles evicted are off-screen ones. A
    /// report from `viewer` supersedes what its earlier reports still had pending.
    private func warm(_ answer: VisibleTiles, of image: CatalogImage, viewer: Substring?) {
        guard !answer.tiles.isEmpty else { return }
        let keys = answer.tiles.map { TileKey(image: image.id, address: TileAddress(level: $0.level, column: $0.column, row: $0.row)) }
        // When every tile is cached already (the steady state), there is nothing to warm.
        if tiles.touch(keys) < keys.count {
            services.warmer.enqueue(keys, of: image, viewer: viewer)
        }
    }

    private func staticFileResponse(path: Substring, exchange: Exchange) -> Response {
        guard let files = services.staticFiles else {
            return .error(.notFound("no viewer installed (no Public/ folder)"))
        }
        let resolved: (path: String, profile: ResponseProfile)
        do {
            resolved = try files.resolve(path)
        } catch {
            return .error(error)
        }
        let services = self.services
        let deliver = self.deliver
        let route = exchange.route
        files.load(resolved.path) { result in
            deliver(Self.response(to: result, profile: resolved.profile, extraHeaders: nil, route: route, services: services))
        }
        return .later
    }

    /// The response to a file read (or not): the file, 404 when it is missing, 503 while shutting down, 502/503/504 when
    /// the store it lives in failed (``SourceUnavailable``), else 500.
    static func response(
        to result: Result<LoadedFile, any Error>, profile: ResponseProfile, extraHeaders: ByteBuffer?, route: RouteLabel, services: Services
    ) -> Response {
        switch result {
        case .success(let file):
            return .file(file, profile: profile, extraHeaders: extraHeaders)
        case .failure(let error as FileLoadError) where error.kind != .unreadable:
            return .error(.notFound(route == .tile ? "tile not found" : "no such file"))
        case .failure(let error as SourceUnavailable):
            // The store behind the image failed: said as such, with when to ask again; logged like a failed read.
            // One line per source (an SZI's object, a folder's tiles) and interval.
            services.readFailures.note("Reading from a store failed: \(error)", key: error.source)
            let message = error.status == .gatewayTimeout ? "the image's store did not answer in time" : "the image's store failed"
            let retry = error.retryAfterSeconds.map { "Retry-After: \($0)\r\n" } ?? ""
            return .error(RequestError(status: error.status, message: message), extraHeaders: retry, close: false)
        case .failure(let error as TileStore.RenderBudgetFull):
            return .error(
                RequestError(status: .serviceUnavailable, message: "\(error); retry shortly"), extraHeaders: "Retry-After: 1\r\n", close: false)
        case .failure(let error):
            // Failures name their file first: one line per file and interval, so each failing file is named.
            let text = String(describing: error)
            services.readFailures.note("Reading a file failed: \(text)", key: String(text.prefix { $0 != ":" }))
            let status: HTTPStatus = error is CancellationError ? .serviceUnavailable : .internalServerError
            return .error(RequestError(status: status, message: "the file could not be read"))
        }
    }

    /// Whether a request for `target` (its bytes) is answered from the target alone (with the method, version,
    /// keep-alive and `If-None-Match`): every request but IIIF's, answered from their headers too (content
    /// negotiation, `Host`, CORS). The server gives this rule to ``SimpleRequestDecoder``, which leaves the others to
    /// NIO's decoder.
    static func answersFromTarget(_ target: UnsafeRawBufferPointer) -> Bool {
        !IIIFRoute.claims(target)
    }
}
