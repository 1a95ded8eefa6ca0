import Glibc

/// A request head in the plain form browsers, curl and viewers send for tiles, read without NIO's general HTTP/1
/// parser: `GET` or `HEAD`, an origin-form target of visible ASCII, `HTTP/1.1` with one `Host` or `HTTP/1.0` with at
/// most one, CRLF line ends, no body. Everything this parser does not recognise fully is left to NIO's decoder (see ``SimpleRequestDecoder``),
/// so it only ever accepts a subset of what that decoder accepts, and reads it the same way.
package struct SimpleRequest: Sendable, Equatable {
    /// The request target as sent (undecoded), starting with `/`.
    package let uri: String
    /// Whether the method was `HEAD`.
    package let isHead: Bool
    /// Whether the request line said `HTTP/1.0`.
    package let isHTTP10: Bool
    /// Whether the connection stays open after the response, as NIO's `HTTPRequestHead.isKeepAlive` decides: for
    /// HTTP/1.1 unless `Connection: close`, for HTTP/1.0 only with `Connection: keep-alive`.
    package let keepAlive: Bool
    /// The less common header values, if the request has any.
    package let headers: RequestHeaderValues?

    /// A request for `uri` with these header values (`nil`: not sent).
    package init(
        uri: String, isHead: Bool, isHTTP10: Bool, keepAlive: Bool, ifNoneMatch: String?, origin: String? = nil, range: String? = nil,
        ifRange: String? = nil, authorization: String? = nil
    ) {
        self.uri = uri
        self.isHead = isHead
        self.isHTTP10 = isHTTP10
        self.keepAlive = keepAlive
        self.headers = .holding(ifNoneMatch: ifNoneMatch, origin: origin, range: range, ifRange: ifRange, authorization: authorization)
    }

    /// The first `If-None-Match` header's value, without surrounding white space.
    package var ifNoneMatch: String? { headers?.ifNoneMatch }
    /// The first `Origin` header's value (a cross-origin request), if any.
    package var origin: String? { headers?.origin }
    /// The first `Range` header's value, if any.
    package var range: String? { headers?.range }
    /// The first `If-Range` header's value, if any.
    package var ifRange: String? { headers?.ifRange }
    /// The first `Authorization` header's value (an access token), if any.
    package var authorization: String? { headers?.authorization }
}

extension SimpleRequest {
    /// Whether `bytes` are `lowercase`, compared ASCII case-insensitively (header names). O(n).
    package static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let pointer = lowercase.utf8Start
        for index in 0..<bytes.count where bytes[index] | 0x20 != pointer[index] {
            return false
        }
        return true
    }

    /// What ``scan(_:maxHeadBytes:)`` made of the bytes at the start of a buffer.
    package enum Scan: Equatable {
        /// A complete request head, `length` bytes long including its blank line.
        case request(SimpleRequest, length: Int)
        /// So far a simple request head; more bytes are needed.
        case incomplete
        /// Not a simple request (another method, a body, a malformed or oversized head …): for NIO's decoder.
        case unsupported
    }

    /// The most header lines a simple head may have (NIO's decoder is given the same limit).
    package static let maxHeaderLines = 100

    /// Reads one request head from the start of `bytes`.
    ///
    /// - Parameter maxHeadBytes: Heads longer than this are ``Scan/unsupported`` (NIO's decoder then refuses them).
    /// - Complexity: O(n) in the head's length; allocates only the returned strings.
    /// - Parameter takes: Whether the request target (its bytes) may be read here; targets it refuses are
    ///   ``Scan/unsupported`` (the server leaves requests answered from their headers, IIIF's, to NIO's decoder).
    package static func scan(_ bytes: UnsafeRawBufferPointer, maxHeadBytes: Int, takes: (UnsafeRawBufferPointer) -> Bool = { _ in true }) -> Scan {
        var reader = HeadReader(bytes: bytes, limit: min(bytes.count, maxHeadBytes))
        let outcome = reader.read(takes: takes)
        if case .incomplete = outcome, bytes.count >= maxHeadBytes {
            return .unsupported
        }
        return outcome
    }
}

/// The state of one pass over a request head.
private struct HeadReader {
    package let bytes: UnsafeRawBufferPointer
    /// How many bytes may be read: the buffer's or the head limit, whichever is smaller.
    package let limit: Int
    package var position = 0

    package init(bytes: UnsafeRawBufferPointer, limit: Int) {
        self.bytes = bytes
        self.limit = limit
    }

    /// Reads the head; `takes` says whether its target may be read here.
    package mutating func read(takes: (UnsafeRawBufferPointer) -> Bool) -> SimpleRequest.Scan {
        let isHead: Bool
        switch expectEither("GET ", or: "HEAD ") {
        case .first: isHead = false
        case .second: isHead = true
        case .short: return .incomplete
        case .neither: return .unsupported
        }
        let targetStart = position
        var at = position
        while at < limit, bytes[at] != UInt8(ascii: " ") {
            guard (0x21...0x7E).contains(bytes[at]) else { return .unsupported }
            at &+= 1
        }
        position = at
        guard position < limit else { return .incomplete }
        let target = UnsafeRawBufferPointer(rebasing: bytes[targetStart..<position])
        guard target.first == UInt8(ascii: "/"), takes(target) else { return .unsupported }
        let isHTTP10: Bool
        switch expectEither(" HTTP/1.1\r\n", or: " HTTP/1.0\r\n") {
        case .first: isHTTP10 = false
        case .second: isHTTP10 = true
        case .short: return .incomplete
        case .neither: return .unsupported
        }
        var fields = Fields()
        var lines = 0
        while true {
            guard position + 1 < limit else { return .incomplete }
            if bytes[position] == UInt8(ascii: "\r") {
                guard bytes[position + 1] == UInt8(ascii: "\n") else { return .unsupported }
                position += 2
                break
            }
            lines += 1
            guard lines <= SimpleRequest.maxHeaderLines else { return .unsupported }
            switch readField(into: &fields) {
            case .matched: continue
            case .short: return .incomplete
            case .different: return .unsupported
            }
        }
        // A Host missing from HTTP/1.1, or given twice: NIO's decoder reads it and the handler answers 400.
        guard RequestAdmission.hostsAreValid(fields.hosts, isHTTP10: isHTTP10) else { return .unsupported }
        guard let keepAlive = fields.keepAlive(isHTTP10: isHTTP10) else { return .unsupported }
        let request = SimpleRequest(
            uri: String(decoding: target, as: UTF8.self), isHead: isHead, isHTTP10: isHTTP10, keepAlive: keepAlive,
            ifNoneMatch: fields.ifNoneMatch.map { String(decoding: bytes[$0], as: UTF8.self) },
            origin: fields.origin.map { String(decoding: bytes[$0], as: UTF8.self) },
            range: fields.range.map { String(decoding: bytes[$0], as: UTF8.self) },
            ifRange: fields.ifRange.map { String(decoding: bytes[$0], as: UTF8.self) },
            authorization: fields.authorization.map { String(decoding: bytes[$0], as: UTF8.self) })
        return .request(request, length: position)
    }

    package enum Match {
        case matched, short, different
    }

    package enum Either {
        case first, second, short, neither
    }

    /// Consumes `first` or else `second`, whichever the bytes at the position start with.
    package mutating func expectEither(_ first: StaticString, or second: StaticString) -> Either {
        switch expect(first) {
        case .matched: return .first
        case .short: return .short
        case .different:
            switch expect(second) {
            case .matched: return .second
            case .short: return .short
            case .different: return .neither
            }
        }
    }

    /// Consumes `literal` if the bytes at the position start with it.
    package mutating func expect(_ literal: StaticString) -> Match {
        let count = literal.utf8CodeUnitCount
        let available = min(count, limit - position)
        guard memcmp(bytes.baseAddress! + position, literal.utf8Start, available) == 0 else { return .different }
        guard available == count else { return .short }
        position += count
        return .matched
    }

    /// Reads one `name: value` line and records what matters of it in `fields`; `.different` for a line outside the
    /// simple form (bad characters, bare LF, obs-fold) or a header that means a body or a protocol switch.
    package mutating func readField(into fields: inout Fields) -> Match {
        // A local cursor, stored back once: the stored one would be written to memory at every byte.
        var at = position
        defer { position = at }
        let nameStart = at
        while at < limit, Self.isTokenByte(bytes[at]) {
            at &+= 1
        }
        guard at < limit else { return .short }
        guard bytes[at] == UInt8(ascii: ":"), at > nameStart else { return .different }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<at])
        at &+= 1
        while at < limit, bytes[at] == UInt8(ascii: " ") || bytes[at] == UInt8(ascii: "\t") {
            at &+= 1
        }
        let valueStart = at
        var valueEnd = at
        while at < limit {
            let byte = bytes[at]
            if (0x21...0x7E).contains(byte) {
                at &+= 1
                valueEnd = at
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                at &+= 1
            } else {
                break
            }
        }
        guard at + 1 < limit else { return .short }
        guard bytes[at] == UInt8(ascii: "\r"), bytes[at + 1] == UInt8(ascii: "\n") else { return .different }
        at &+= 2
        return fields.record(name: name, value: valueStart..<valueEnd, in: bytes) ? .matched : .different
    }

    /// `tchar` of RFC 9110: the bytes of a header name (`ALPHA`, `DIGIT` and ``!#$%&'*+-.^_`|~``), as two 64-bit
    /// sets: a shift and a mask a byte instead of a chain of comparisons.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        let below64: UInt64 = 0x03FF_6CFA_0000_0000
        let from64: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        switch byte {
        case 0..<64: return below64 >> byte & 1 == 1
        case 64..<128: return from64 >> (byte - 64) & 1 == 1
        default: return false
        }
    }
}

/// The header fields a simple request's answer depends on.
private struct Fields {
    /// Where the first `If-None-Match` value is.
    package var ifNoneMatch: Range<Int>?
    /// Where the first `Origin`, `Range`, `If-Range` and `Authorization` values are.
    package var origin: Range<Int>?
    package var range: Range<Int>?
    package var ifRange: Range<Int>?
    package var authorization: Range<Int>?
    package var saysClose = false
    package var saysKeepAlive = false
    /// How many `Host` headers the request has.
    package var hosts = 0

    /// Records one header; false for headers that take the request out of the simple form: a body
    /// (`Content-Length`, `Transfer-Encoding`), `Expect`, `Upgrade`, and `Connection` options other than `close`
    /// and `keep-alive`.
    package mutating func record(name: UnsafeRawBufferPointer, value: Range<Int>, in bytes: UnsafeRawBufferPointer) -> Bool {
        switch name.count {
        case 4:
            if SimpleRequest.equalsIgnoringCase(name, "host") { hosts += 1 }
            return true
        case 5:
            if range == nil && SimpleRequest.equalsIgnoringCase(name, "range") { range = value }
            return true
        case 6:
            if origin == nil && SimpleRequest.equalsIgnoringCase(name, "origin") {
                origin = value
                return true
            }
            return !SimpleRequest.equalsIgnoringCase(name, "expect")
        case 8:
            if ifRange == nil && SimpleRequest.equalsIgnoringCase(name, "if-range") { ifRange = value }
            return true
        case 7: return !SimpleRequest.equalsIgnoringCase(name, "upgrade")
        case 10:
            guard SimpleRequest.equalsIgnoringCase(name, "connection") else { return true }
            return recordConnection(UnsafeRawBufferPointer(rebasing: bytes[value]))
        case 13:
            if ifNoneMatch == nil && SimpleRequest.equalsIgnoringCase(name, "if-none-match") {
                ifNoneMatch = value
            } else if authorization == nil && SimpleRequest.equalsIgnoringCase(name, "authorization") {
                authorization = value
            }
            return true
        case 14: return !SimpleRequest.equalsIgnoringCase(name, "content-length")
        case 17: return !SimpleRequest.equalsIgnoringCase(name, "transfer-encoding")
        default: return true
        }
    }

    /// Reads a `Connection` value's comma-separated options.
    private mutating func recordConnection(_ value: UnsafeRawBufferPointer) -> Bool {
        for option in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let trimmed = option.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let end = trimmed.lastIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            guard let end else { continue }
            let word = UnsafeRawBufferPointer(rebasing: trimmed[trimmed.startIndex...end])
            if SimpleRequest.equalsIgnoringCase(word, "close") {
                saysClose = true
            } else if SimpleRequest.equalsIgnoringCase(word, "keep-alive") {
                saysKeepAlive = true
            } else {
                return false
            }
        }
        return true
    }

    /// Whether the connection stays open (`nil` when the request said both `close` and `keep-alive`).
    package func keepAlive(isHTTP10: Bool) -> Bool? {
        if saysClose && saysKeepAlive { return nil }
        return isHTTP10 ? saysKeepAlive : !saysClose
    }

}
