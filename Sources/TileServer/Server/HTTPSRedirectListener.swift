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
    /// when `host` is not a plain host name or address.
    static func location(uri: String, host: String?, tlsPort: Int) -> String? {
        guard let host, !host.isEmpty, host.utf8.count <= 255 else { return nil }
        let name: Substring
        if host.hasPrefix("[") {
            // [v6 address] or [v6 address]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            name = host[...close]
            guard name.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
        }
        let target = uri.hasPrefix("/") ? uri : "/"
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return "https://\(name)\(tlsPort == 443 ? "" : ":\(tlsPort)")\(target)"
    }
}
