import NIOCore

/// Response pieces encoded once at startup. A class: handing it around retains one object, where a struct of a
/// dozen buffers would retain each of them on every copy (on every request, from both cores).
final class ResponseBlocks: Sendable {
    /// A blank line, ending a head.
    let crlf = ByteBuffer(string: "\r\n")
    /// `X-Cache: hit`
    let cacheHit = ByteBuffer(string: "X-Cache: hit\r\n")
    /// `X-Cache: miss`
    let cacheMiss = ByteBuffer(string: "X-Cache: miss\r\n")
    /// `Connection: close`
    let connectionClose = ByteBuffer(string: "Connection: close\r\n")
    /// `Connection: keep-alive` (for HTTP/1.0 clients that asked for it).
    let connectionKeepAlive = ByteBuffer(string: "Connection: keep-alive\r\n")
    /// `.dzi` descriptors: XML, short-lived, CORS.
    let descriptor = ResponseProfile(contentType: "application/xml", cacheControl: ResponseProfile.short, cors: true)
    /// `.dzi` descriptors under their versioned URL (`NAME@VERSION.dzi`): they never change there.
    let versionedDescriptor = ResponseProfile(contentType: "application/xml", cacheControl: ResponseProfile.immutable, cors: true)
    /// JSON answers: short-lived, CORS.
    let json = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.short, cors: true)
    /// JSON errors and health: not stored, CORS.
    let jsonNoStore = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.noStore, cors: true)
    /// Prometheus text.
    let metrics = ResponseProfile(
        contentType: "text/plain; version=0.0.4; charset=utf-8", cacheControl: ResponseProfile.noStore, cors: false)
}
