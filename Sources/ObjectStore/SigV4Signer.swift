import Crypto
import Foundation

/// AWS Signature Version 4 for header-based authentication (one chunk, signed payload), with swift-crypto's
/// HMAC-SHA256 and SHA-256.
///
/// The canonical request is the method, the percent-encoded path, the query sorted by encoded name then value, the
/// signed headers (lower-cased, sorted, values trimmed and inner spaces collapsed), their names, and the payload's
/// SHA-256; the string to sign chains it with the time and the scope `DATE/REGION/SERVICE/aws4_request`; the key is
/// HMAC-chained from `"AWS4" + secret` over date, region, service and `aws4_request`. The time is a parameter: the
/// signer never reads a clock.
public struct SigV4Signer: Sendable {
    /// The hex SHA-256 of an empty payload, for GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The key pair that signs.
    public let credentials: S3Credentials
    /// The region in the scope.
    public let region: String
    /// The service in the scope (`s3`).
    public let service: String
    private let keys = SigningKeyCache()

    /// Creates a signer for one region and service.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers of a signed request: `headers` (which must hold `host`) plus `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` (with a session token) and `authorization`.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, ….
    ///   - path: the request path, already percent-encoded as it is sent (``encodePath(_:)``).
    ///   - query: the query's names and values, not encoded (a bare `?uploads` is `("uploads", "")`).
    ///   - headers: the headers to sign, by name (any case) and value.
    ///   - payloadHash: the hex SHA-256 of the body (``payloadHash(_:)``), or ``emptyPayloadHash``.
    ///   - date: the signing time; requests more than 15 minutes away from the store's clock are refused.
    public func sign(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String, date: Date
    ) -> [(String, String)] {
        let stamp = Self.timestamp(date)
        var all = headers
        all.append(("x-amz-date", stamp))
        all.append(("x-amz-content-sha256", payloadHash))
        if let token = credentials.sessionToken { all.append(("x-amz-security-token", token)) }
        let (canonical, signedNames) = Self.canonicalRequestBytes(method: method, path: path, query: query, headers: all, payloadHash: payloadHash)
        let day = String(stamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        var stringToSign = Array("AWS4-HMAC-SHA256\n\(stamp)\n\(scope)\n".utf8)
        Self.appendHex(SHA256.hash(data: canonical), to: &stringToSign)
        let key = keys.key(day: day) { signingKey(day: $0) }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: stringToSign, using: key))
        all.append(
            ("authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope),SignedHeaders=\(signedNames),Signature=\(signature)"))
        return all
    }

    /// The derived key of one day: HMAC chained over the date, region, service and `aws4_request`.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The canonical request and its `SignedHeaders` list (`host;range;x-amz-content-sha256;x-amz-date`).
    package static func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (request: String, signedHeaders: String) {
        let (bytes, signed) = canonicalRequestBytes(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
        return (String(decoding: bytes, as: UTF8.self), signed)
    }

    /// ``canonicalRequest(method:path:query:headers:payloadHash:)`` as UTF-8, built byte by byte: it is made for every
    /// request sent, and `String`'s and Foundation's trimming cost more than the hashing.
    static func canonicalRequestBytes(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (request: [UInt8], signedHeaders: String) {
        // Same-named headers keep their order, their values joined with commas.
        var lines: [(name: [UInt8], value: [UInt8], order: Int)] = []
        for (order, (name, value)) in headers.enumerated() {
            lines.append((lowercased(name), canonicalValue(value), order))
        }
        lines.sort { $0.name != $1.name ? $0.name.lexicographicallyPrecedes($1.name) : $0.order < $1.order }
        var request = Array(method.utf8)
        request.reserveCapacity(512)
        request.append(newline)
        request.append(contentsOf: path.isEmpty ? Array("/".utf8) : Array(path.utf8))
        request.append(newline)
        request.append(contentsOf: canonicalQuery(query).utf8)
        request.append(newline)
        var signed: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0, lines[index - 1].name == line.name {
                request.removeLast()
                request.append(UInt8(ascii: ","))
            } else {
                if !signed.isEmpty { signed.append(UInt8(ascii: ";")) }
                signed.append(contentsOf: line.name)
                request.append(contentsOf: line.name)
                request.append(UInt8(ascii: ":"))
            }
            request.append(contentsOf: line.value)
            request.append(newline)
        }
        request.append(newline)
        request.append(contentsOf: signed)
        request.append(newline)
        request.append(contentsOf: payloadHash.utf8)
        return (request, String(decoding: signed, as: UTF8.self))
    }

    /// The query as signed and sent: each name and value URI-encoded (``encode(_:keepSlash:)``), sorted by name then
    /// value, `name=value` joined with `&`.
    public static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (encode($0.0, keepSlash: false), encode($0.1, keepSlash: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// The hex SHA-256 of a body, for `x-amz-content-sha256`.
    public static func payloadHash<Bytes: Sequence>(_ body: Bytes) -> String where Bytes.Element == UInt8 {
        hex(SHA256.hash(data: Array(body)))
    }

    private static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        appendHex(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
