import NIOCore
import NIOSSL

/// The first handler of a connection on a TLS port: it looks at the first byte the client sends. A TLS handshake
/// record (22) puts the TLS handler in its place, with the context the connection's ``TLSCredentials`` hold now. Any
/// other byte is a plain-HTTP client on an HTTPS port: it gets a plain `400` saying so — with the `https://` URL to ask
/// instead when its request names a host — and the connection closes (nginx's answer to the same mistake is a 400
/// too; a TLS alert would leave the user with a browser's unreadable error).
package final class TLSSniffer: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let credentials: TLSCredentials
    private var refused = false

    /// A sniffer handing TLS connections to `credentials`' current context.
    package init(credentials: TLSCredentials) {
        self.credentials = credentials
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        guard first == 22 else { return refusePlainHTTP(bytes, context: context) }
        do {
            try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: credentials.context), position: .after(self))
        } catch {
            return context.close(promise: nil)
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func refusePlainHTTP(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        refused = true
        var body = "This port speaks HTTPS only"
        if let url = Self.httpsURL(of: bytes) { body += ": ask \(url)" }
        body += "\n"
        let head =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + body))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// `https://HOST/TARGET` for a plain request's first bytes when its request line and `Host` line are there and
    /// plainly well formed (nothing of a malformed request is echoed); nil otherwise.
    static func httpsURL(of bytes: ByteBuffer) -> String? {
        let text = String(decoding: bytes.readableBytesView.prefix(8192), as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, let hostLine = lines.dropFirst().first(where: { $0.lowercased().hasPrefix("host:") }) else { return nil }
        let host = hostLine.dropFirst(5).drop { $0 == " " || $0 == "\t" }
        return URLParts.httpsURL(authority: host, target: parts[1], port: nil)
    }
}
