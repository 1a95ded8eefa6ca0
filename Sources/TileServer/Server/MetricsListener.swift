import NIOCore
import NIOHTTP1

/// The metrics listener (`--metrics-port`, on `--metrics-host`, loopback by default): `GET /metrics` (Prometheus text)
/// and `GET /healthz` with every count, private images' included, apart from the port clients reach. Operators
/// scrape it; under an access policy the main port answers neither with a count (see ``Router``).
///
/// A ``SideListener``: a handful of requests a minute need none of the main port's fast path.
enum MetricsListener {
    /// Binds the listener on `group` and returns its channel.
    ///
    /// - Throws: What binding throws (the address is taken, or not this machine's).
    static func bind(host: String, port: Int, group: any EventLoopGroup, services: Services) async throws -> any Channel {
        try await SideListener.bind(host: host, port: port, group: group, idle: TimeAmount(services.configuration.idleTimeout)) { request in
            let (status, type, text) = answer(method: request.method, path: request.uri.prefix { $0 != "?" }, services: services)
            return SideListener.Answer(status: status, headers: ["Content-Type": type, "Cache-Control": "no-store"], body: text)
        }
    }

    /// The answer to `method` on `path`: status, content type and body.
    static func answer(method: HTTPMethod, path: Substring, services: Services) -> (HTTPResponseStatus, String, String) {
        guard method == .GET || method == .HEAD else {
            return (.methodNotAllowed, "text/plain; charset=utf-8", "use GET or HEAD\n")
        }
        switch path {
        case "/metrics":
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", services.metrics.prometheusText(statistics: services.statistics))
        case "/healthz":
            return (.ok, "application/json", Router.healthJSON(images: services.catalog.count))
        default:
            return (.notFound, "text/plain; charset=utf-8", "the metrics listener answers /metrics and /healthz\n")
        }
    }
}
