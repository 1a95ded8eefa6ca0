import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension HTTPTransport {
    /// The headers of a ranged GET: `Range: bytes=FIRST-LAST` (inclusive) and `If-Match` when a version is asked for.
    static func rangeHeaders(_ range: Range<Int>, ifMatch: String?) -> [(String, String)] {
        precondition(!range.isEmpty && range.lowerBound >= 0, "a ranged read asks for at least one byte")
        var headers = [("range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        if let ifMatch { headers.append(("if-match", ifMatch)) }
        return headers
    }

    /// The bytes of `range` from the answer to a ranged GET.
    ///
    /// A 206 must name the range asked for (`Content-Range: bytes FIRST-LAST/SIZE`, FIRST as asked, LAST no further) and
    /// carry exactly its bytes. A 200 means the server ignored `Range` and sent the whole object: the range is cut out of
    /// it (the bytes are right, if more were fetched).
    func rangeBody(_ response: HTTPClient.Response, range: Range<Int>, _ call: Call) -> Result<ByteBuffer, ObjectStoreError> {
        var body = response.body ?? ByteBuffer()
        if response.status == .ok {
            guard range.lowerBound < body.readableBytes else {
                return .failure(error(.malformed, call, status: 200, "range starts past the end of a \(body.readableBytes)-byte object"))
            }
            let end = min(range.upperBound, body.readableBytes)
            return .success(body.getSlice(at: body.readerIndex + range.lowerBound, length: end - range.lowerBound)!)
        }
        guard response.status == .partialContent else {
            return .failure(error(.malformed, call, status: Int(response.status.code), "not a partial answer to a ranged GET"))
        }
        guard let contentRange = response.headers.first(name: "content-range"), let (first, last) = Self.parseContentRange(contentRange),
            first == range.lowerBound, last < range.upperBound, last >= first
        else {
            let shown = response.headers.first(name: "content-range") ?? "none"
            return .failure(error(.malformed, call, status: 206, "Content-Range \(shown) for bytes \(range.lowerBound)-\(range.upperBound - 1)"))
        }
        guard body.readableBytes == last - first + 1 else {
            return .failure(
                error(.unavailable, call, status: 206, "body of \(body.readableBytes) bytes for a range of \(last - first + 1)", retryable: true))
        }
        return .success(body.readSlice(length: body.readableBytes)!)
    }

    /// `bytes 0-9/443` → (0, 9).
    static func parseContentRange(_ text: String) -> (Int, Int)? {
        guard text.hasPrefix("bytes ") else { return nil }
        let span = text.dropFirst(6).prefix { $0 != "/" }
        let ends = span.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Int(ends[0]), let last = Int(ends[1]) else { return nil }
        return (first, last)
    }

    /// Size, ETag and time of the answer to a HEAD.
    func objectInfo(_ response: HTTPClient.Response, key: String, _ call: Call) -> Result<ObjectInfo, ObjectStoreError> {
        guard let size = response.headers.first(name: "content-length").flatMap(Int.init), size >= 0 else {
            return .failure(error(.malformed, call, status: Int(response.status.code), "no Content-Length"))
        }
        let etag = response.headers.first(name: "etag") ?? ""
        let modified = response.headers.first(name: "last-modified").flatMap(CivilTime.parseHTTPDate)
        return .success(ObjectInfo(key: key, size: size, etag: etag, lastModified: modified))
    }
}
