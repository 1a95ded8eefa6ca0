import HTTPCore
import NIOCore
import NIOHTTP1

extension Router {
    /// Answers a CORS preflight (`OPTIONS`) outside `/iiif/` for whatever `GET` at the same URL would answer: 404
    /// where that is 404 (an unknown route or image, an old version, a hidden file), else the preflight answer. A name
    /// under a private prefix is not looked up: a preflight carries no credential, so its answer must not say whether
    /// such an image exists or what its version is.
    func preflight(_ head: HTTPRequestHead, exchange: inout Exchange) -> Response {
        let route: Route
        switch routed(head.uri, exchange: &exchange) {
        case .success(let found): route = found.1
        case .failure(let error): return .error(error)
        }
        switch route {
        case .tile(let name, _, _), .descriptor(let name), .visible(let name), .properties(let name), .associated(let name, _):
            if let policy = services.access, isPrivate(name, policy: policy) { break }
            if case .failure(let error) = lookup(name) { return .error(error) }
        case .staticFile(let path):
            guard let files = services.staticFiles else { return .error(.notFound("no viewer installed (no Public/ folder)")) }
            do {
                _ = try files.resolve(path)
            } catch {
                return .error(error)
            }
        case .unknown(let path):
            // An upload's URL names an image that may not exist yet.
            guard path.hasPrefix("/api/images/") else { return .error(.notFound("nothing at \(path)")) }
        case .job, .jobs, .imageList, .health, .metrics, .jobEvents:
            break
        }
        return preflightResponse(head, exchange: exchange, methods: route.allowedMethods.map(\.rawValue).joined(separator: ", "))
    }

    /// A CORS preflight's answer: 200, empty, allowing `methods` (`GET`, `HEAD` and `OPTIONS`; `PUT` for uploads, `DELETE` for jobs), the request headers asked for
    /// (header names only, at most 512 bytes), for a day; 403 when origins are listed and the request's is not one.
    func preflightResponse(_ head: HTTPRequestHead, exchange: Exchange, methods: String = "GET, HEAD, OPTIONS") -> Response {
        let cors = services.blocks.cors
        guard cors.allows(exchange.origin) else {
            let origin = exchange.origin ?? "(no Origin header)"
            return .error(RequestError(status: .forbidden, message: "origin \(origin) is not allowed to read this server's answers"))
        }
        var headers = "Access-Control-Allow-Methods: \(methods)\r\nAllow: \(methods)\r\nAccess-Control-Max-Age: 86400\r\n"
        if let asked = head.headers.first(name: "access-control-request-headers"), asked.utf8.count <= 512,
            asked.utf8.allSatisfy({ Self.headerListBytes.contains($0) })
        {
            headers += "Access-Control-Allow-Headers: \(asked)\r\n"
        }
        return .body(status: .ok, headerLines: services.blocks.empty.headerLines, extraHeaders: headers, body: ByteBuffer())
    }

    /// The bytes of a list of header names: token characters, commas and spaces.
    private static let headerListBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_, ".utf8)
}
