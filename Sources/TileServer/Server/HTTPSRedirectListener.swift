import HTTPCore
import NIOCore
import NIOHTTP1

/// The plain-HTTP listener of `--redirect-http PORT` beside a TLS port: every request is answered `308 Permanent
/// Redirect` to the same path and query over `https://`, on the host the request named and the TLS port (left out
/// when 443). 308 keeps the method and body (RFC 9110 §15.4.9), so an upload is not turned into a GET. A request
/// without a well-formed `Host` gets 400: a redirect must not send a client to a host made up of its own bytes.
///
/// A ``SideListener``, like ``MetricsListener``: it serves nothing but redirects.
enum HTTPSRedirectListener {
    /// Binds the listener on `group`, redirecting to `tlsPort`, and returns its channel.
    ///
    /// - Throws: What binding throws (the address is taken, or not this machine's).
    static func bind(host: String, port: Int, tlsPort: Int, group: any EventLoopGroup, idle: TimeAmount) async throws -> any Channel {
        try await SideListener.bind(host: host, port: port, group: group, idle: idle) { request in
            answer(to: request, tlsPort: tlsPort)
        }
    }

    /// The redirect (or the 400) for `request`.
    static func answer(to request: HTTPRequestHead, tlsPort: Int) -> SideListener.Answer {
        let location = location(uri: request.uri, host: request.headers.first(name: "Host"), tlsPort: tlsPort)
        var headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        guard let location else {
            return SideListener.Answer(status: .badRequest, headers: headers, body: "This server speaks HTTPS: send a Host header naming it\n")
        }
        headers.add(name: "Location", value: location)
        return SideListener.Answer(status: .permanentRedirect, headers: headers, body: "This server speaks HTTPS: \(location)\n")
    }

    /// The `Location` for a request for `uri` that named `host` (its `Host` header, port and all), to `tlsPort`; nil
    /// when `host` is not a plain host name or address (``URLParts/httpsURL(authority:target:port:)``).
    static func location(uri: String, host: String?, tlsPort: Int) -> String? {
        guard let host else { return nil }
        return URLParts.httpsURL(authority: host[...], target: uri.hasPrefix("/") ? uri[...] : "/", port: tlsPort)
    }
}
