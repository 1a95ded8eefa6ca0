import NIOCore

/// One page of a ListObjectsV2 answer.
public struct S3ListPage: Sendable, Equatable {
    /// The objects of the page, keys relative to the client's prefix, in key order.
    public var objects: [ObjectInfo]
    /// With a delimiter: the "folders" rolled up, relative to the client's prefix.
    public var commonPrefixes: [String]
    /// The token of the next page, or nil on the last.
    public var nextContinuationToken: String?
}

extension S3Client {
    /// Every object under `prefix` (relative to the client's prefix), all pages read in turn.
    public func list(prefix: String, on eventLoop: any EventLoop) -> EventLoopFuture<[ObjectInfo]> {
        listAll(prefix: prefix, maxKeys: nil, token: nil, collected: [], on: eventLoop)
    }

    /// Every object under `prefix`, asking for pages of at most `maxKeys` keys (a small value tests paging).
    public func list(prefix: String, pageSize maxKeys: Int, on eventLoop: any EventLoop) -> EventLoopFuture<[ObjectInfo]> {
        listAll(prefix: prefix, maxKeys: maxKeys, token: nil, collected: [], on: eventLoop)
    }

    private func listAll(
        prefix: String, maxKeys: Int?, token: String?, collected: [ObjectInfo], on eventLoop: any EventLoop
    ) -> EventLoopFuture<[ObjectInfo]> {
        listPage(prefix: prefix, maxKeys: maxKeys, continuationToken: token, on: eventLoop).flatMap { page in
            let all = collected + page.objects
            guard let next = page.nextContinuationToken else { return eventLoop.makeSucceededFuture(all) }
            return self.listAll(prefix: prefix, maxKeys: maxKeys, token: next, collected: all, on: eventLoop)
        }
    }

    /// One page of ListObjectsV2.
    ///
    /// - Parameters:
    ///   - prefix: relative to the client's prefix.
    ///   - delimiter: rolls keys up to ``S3ListPage/commonPrefixes`` at this character (`/` for one folder level).
    ///   - maxKeys: at most this many keys (the store's default, 1,000, if nil).
    ///   - continuationToken: the previous page's ``S3ListPage/nextContinuationToken``.
    public func listPage(
        prefix: String, delimiter: String? = nil, maxKeys: Int? = nil, continuationToken: String? = nil, on eventLoop: any EventLoop
    ) -> EventLoopFuture<S3ListPage> {
        let root = configuration.location.prefix
        var query = [("list-type", "2"), ("prefix", root + prefix)]
        if let delimiter { query.append(("delimiter", delimiter)) }
        if let maxKeys { query.append(("max-keys", String(maxKeys))) }
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let call = HTTPTransport.Call(operation: "LIST", key: prefix.isEmpty ? nil : prefix)
        return send(call, .GET, key: nil, query: query, on: eventLoop).flatMapResult { response in
            Self.parseListPage(response.body ?? ByteBuffer(), root: root).mapError { self.transport.error(.malformed, call, status: 200, $0.reason) }
        }
    }

    /// Reads a `ListBucketResult`; the error is the reason it could not.
    static func parseListPage(_ body: ByteBuffer, root: String) -> Result<S3ListPage, ListingFailure> {
        guard let document = S3XMLElement.parse(body), document.name == "ListBucketResult" else {
            return .failure(ListingFailure("not a ListBucketResult document"))
        }
        var objects: [ObjectInfo] = []
        for entry in document.children("Contents") {
            guard let key = entry.value("Key"), key.hasPrefix(root), let size = entry.value("Size").flatMap(Int.init) else {
                return .failure(ListingFailure("an entry without a key under the prefix or a size"))
            }
            objects.append(
                ObjectInfo(
                    key: String(key.dropFirst(root.count)), size: size, etag: entry.value("ETag") ?? "",
                    lastModified: entry.value("LastModified").flatMap(CivilTime.parseISO8601)))
        }
        let prefixes = document.children("CommonPrefixes").compactMap { $0.value("Prefix") }.filter { $0.hasPrefix(root) }
            .map { String($0.dropFirst(root.count)) }
        let truncated = document.value("IsTruncated") == "true"
        let next = document.value("NextContinuationToken")
        if truncated && (next ?? "").isEmpty { return .failure(ListingFailure("a truncated listing without a continuation token")) }
        return .success(S3ListPage(objects: objects, commonPrefixes: prefixes, nextContinuationToken: truncated ? next : nil))
    }

    /// Why an answer could not be read as a listing.
    struct ListingFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
