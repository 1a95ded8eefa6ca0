import NIOCore

extension ObjectReader {
    /// ``info(_:on:)`` on any of the group's loops, awaited.
    public func info(_ key: String) async throws -> ObjectInfo {
        try await info(key, on: eventLoopGroup.any()).get()
    }

    /// ``read(_:range:ifMatch:on:)`` on any of the group's loops, awaited.
    public func read(_ key: String, range: Range<Int>, ifMatch: String? = nil) async throws -> ByteBuffer {
        try await read(key, range: range, ifMatch: ifMatch, on: eventLoopGroup.any()).get()
    }

    /// ``list(prefix:on:)`` on any of the group's loops, awaited.
    public func list(prefix: String = "") async throws -> [ObjectInfo] {
        try await list(prefix: prefix, on: eventLoopGroup.any()).get()
    }
}
