import Foundation
import NIOCore

/// What a tile source needs of a place where objects live: an object's size and version, a byte range of it (of that
/// version only), and the keys under a prefix. ``S3Client`` and ``HTTPRangeSource`` conform.
///
/// Every method returns a future completed on the event loop given, so a server's handler can chain on it without
/// waiting; the `async` forms are in `ObjectReader+Async.swift`. Keys are relative to the store's root prefix. Failures
/// are ``ObjectStoreError``s.
public protocol ObjectReader: Sendable {
    /// The root, for log lines and errors (`s3://bucket/prefix/`, `https://host/folder/`).
    var name: String { get }
    /// The group whose loops run the requests (and the `async` forms).
    var eventLoopGroup: any EventLoopGroup { get }

    /// The size, ETag and modification time of `key` (a HEAD request).
    func info(_ key: String, on eventLoop: any EventLoop) -> EventLoopFuture<ObjectInfo>

    /// The bytes `range` of `key` (a ranged GET), all of them: a body shorter than announced is an error.
    ///
    /// - Parameters:
    ///   - range: byte offsets, half-open, not empty; a range running past the end of the object gives the bytes up to
    ///     the end.
    ///   - ifMatch: an ETag from ``info(_:on:)``: when the object is no longer that version, the future fails with
    ///     ``ObjectStoreError/Kind-swift.struct/changed`` instead of giving bytes of another version.
    func read(_ key: String, range: Range<Int>, ifMatch: String?, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer>

    /// Every object whose key starts with `prefix`, in key order (all pages of the listing).
    func list(prefix: String, on eventLoop: any EventLoop) -> EventLoopFuture<[ObjectInfo]>
}

/// An object's size and version, as a HEAD request or a listing tells them.
public struct ObjectInfo: Sendable, Equatable {
    /// The key, relative to the store's prefix.
    public let key: String
    /// The size in bytes.
    public let size: Int
    /// The ETag exactly as the store sent it (with its quotes), for `If-Match`; empty if the store sent none.
    public let etag: String
    /// The `Last-Modified` time, when the store sent a readable one.
    public let lastModified: Date?

    /// Creates an object's description.
    public init(key: String, size: Int, etag: String, lastModified: Date?) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }

    /// A version string that changes when the object is replaced: the ETag's inside and the size (`9b2cf5…-29184`).
    public var version: String {
        let inner = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).replacingOccurrences(of: "W/", with: "")
        return "\(inner)-\(size)"
    }
}
