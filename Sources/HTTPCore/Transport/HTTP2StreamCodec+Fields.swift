import NIOCore
import NIOHPACK
import NIOHTTP1

extension HTTP2StreamCodec {
    /// The HTTP/1-shaped head of a request whose `HEADERS` block is `fields` (already checked by NIO's connection
    /// handler: pseudo-fields first, lower-case names, nothing connection-specific); `endStream` when no body follows.
    ///
    /// - Complexity: O(fields).
    static func requestHead(_ fields: HPACKHeaders, endStream: Bool) throws -> HTTPRequestHead {
        var method: String?
        var path: String?
        var scheme: String?
        var authority: String?
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count)
        var hasHost = false
        var hasLength = false
        for (name, value, _) in fields {
            guard name.utf8.first == UInt8(ascii: ":") else {
                if name == "host" { hasHost = true }
                if name == "content-length" { hasLength = true }
                headers.add(name: name, value: value)
                continue
            }
            switch name {
            case ":method": method = value
            case ":path": path = value
            case ":scheme": scheme = value
            case ":authority": authority = value
            default: break
            }
        }
        guard let method else { throw HTTP2RequestError(missing: ":method") }
        guard let path else { throw HTTP2RequestError(missing: ":path") }
        guard scheme != nil else { throw HTTP2RequestError(missing: ":scheme") }
        if !hasHost, let authority { headers.add(name: "host", value: authority) }
        let httpMethod = HTTPMethod(rawValue: method)
        switch httpMethod {
        case .GET, .HEAD, .DELETE, .CONNECT, .TRACE:
            break
        default:
            // As NIO's codec does: HTTP/1's framing for a body HTTP/2 frames by DATA and END_STREAM.
            if !hasLength { headers.add(name: endStream ? "content-length" : "transfer-encoding", value: endStream ? "0" : "chunked") }
        }
        return HTTPRequestHead(version: .init(major: 2, minor: 0), method: httpMethod, uri: path, headers: headers)
    }

    /// The HTTP/1.1 response head at the start of `buffer` (moved past it) as an HTTP/2 `HEADERS` block, its status
    /// code and its `Content-Length`, if any; nil when the bytes are not a whole head. One pass over the bytes (the
    /// head is the server's own, so well formed).
    ///
    /// - Complexity: O(head length).
    static func responseHeaders(_ buffer: inout ByteBuffer) -> (HPACKHeaders, Int, Int?)? {
        let parsed = buffer.withUnsafeReadableBytes { bytes -> (HPACKHeaders, Int, Int?, Int)? in
            // The status line: `HTTP/1.1 200 OK`.
            guard let lineEnd = lineEnd(in: bytes, from: 0), lineEnd >= 12 else { return nil }
            var code = 0
            for index in 9..<12 {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                code = code * 10 + digit
            }
            var headers = HPACKHeaders()
            headers.reserveCapacity(16)
            headers.add(name: ":status", value: String(code))
            var length: Int?
            var start = lineEnd + 2
            while true {
                guard let end = Self.lineEnd(in: bytes, from: start) else { return nil }
                if end == start { return (headers, code, length, end + 2) }
                var colon = start
                while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                guard colon < end else { return nil }
                var valueStart = colon + 1
                while valueStart < end && bytes[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
                let name = UnsafeRawBufferPointer(rebasing: bytes[start..<colon])
                let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)
                start = end + 2
                if Self.isConnectionSpecific(name) { continue }
                let isLength = SimpleRequest.equalsIgnoringCase(name, "content-length")
                if isLength { length = Int(value) }
                let varies = isLength || Self.isPerResponse(name)
                headers.add(name: Self.lowercased(name), value: value, indexing: varies ? .nonIndexable : .indexable)
            }
        }
        guard let (headers, code, length, consumed) = parsed else { return nil }
        buffer.moveReaderIndex(forwardBy: consumed)
        return (headers, code, length)
    }

    /// `name` in lower case, as HTTP/2 requires of field names.
    private static func lowercased(_ name: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: name.count) { target in
            for (index, byte) in name.enumerated() { target[index] = byte &+ ((byte &- 65) < 26 ? 32 : 0) }
            return name.count
        }
    }

    /// The index of the next `\r\n` at or after `from`; nil when there is none.
    private static func lineEnd(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        var index = from
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Whether `name` is a field HTTP/2 forbids (RFC 9113 §8.2.2).
    private static func isConnectionSpecific(_ name: UnsafeRawBufferPointer) -> Bool {
        ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"].contains { SimpleRequest.equalsIgnoringCase(name, $0) }
    }

    /// Whether `name` is a field whose value is rarely the same twice (so not worth HPACK's dynamic table).
    private static func isPerResponse(_ name: UnsafeRawBufferPointer) -> Bool {
        ["etag", "last-modified", "content-range", "location"].contains { SimpleRequest.equalsIgnoringCase(name, $0) }
    }
}

extension HTTPHeaders {
    /// The fields of a `HEADERS` block but its pseudo-fields (a request's trailers).
    init(regularFieldsOf fields: HPACKHeaders) {
        self.init()
        for (name, value, _) in fields where name.utf8.first != UInt8(ascii: ":") { add(name: name, value: value) }
    }
}
