import NIOCore
import NIOEmbedded
import NIOHTTP1
import TestSupport
import Testing

@testable import HTTPCore
@testable import TileServer

/// ``SimpleRequest`` must read only what NIO's own decoder (configured as the server configures it) reads, and read
/// it the same way: method, target, version, keep-alive, `If-None-Match`, and no body. Checked on typical requests
/// and on thousands of seeded mutations of them (bytes replaced, inserted, deleted, case changed).
@Suite struct SimpleRequestDifferentialTests {
    /// The service's rule, as `tiler serve` gives it: every target but the IIIF service's is read by the simple reader.
    static func takes(_ target: UnsafeRawBufferPointer) -> Bool { !target.starts(with: "/iiif/".utf8) }

    static let maxHeadBytes = 4096

    static let seeds: [String] = [
        "GET /images/a_files/3/1_2.jpg HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
        "HEAD /images/a.dzi HTTP/1.0\r\nConnection: keep-alive\r\nIf-None-Match: \"1f-2.3\"\r\n\r\n",
        "GET /api/images/a/visible?x=1&y=2 HTTP/1.1\r\nHost: h\r\nConnection: close\r\nAccept: */*\r\n\r\n",
        "GET / HTTP/1.1\r\nUser-Agent: Mozilla/5.0 (X11)\r\nHost: h\r\nAccept-Encoding: gzip, br\r\nCookie: a=b; c=\"d\"\r\n\r\n",
        "GET /a%20b?c HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, close\r\nContent-Length: 0\r\nX-Tab:\tv\t\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHOST: h\r\n" + (0..<99).map { "X-\($0): \($0)\r\n" }.joined() + "\r\n",
        "GET /x HTTP/1.1\r\nIf-None-Match: \"a\", W/\"b\"\r\nif-none-match: \"c\"\r\nhost: h\r\nConnection: ,keep-alive,\r\n\r\n",
        "GET /images/a.dzi HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",
    ]

    /// Bytes the mutations draw from: the ones a parser's decisions turn on.
    static let alphabet: [UInt8] = Array(" \r\n\t:,;\"/?%#A a-zZ0.".utf8) + [0, 0x7F, 0x80, 0xE9, 0xFF]

    /// Which ``seeds`` the fast path must read itself: all but the one that asks for both `Keep-Alive` and `close`
    /// and carries a `Content-Length`, and the one with two `Host` headers (NIO's decoder's to read).
    static let seedsReadBySimpleRequest = [true, true, true, true, false, true, true, false]

    @Test func typicalRequestsAreReadLikeNIOReadsThem() throws {
        // `compare` checks only what the fast path reads: a fast path that read nothing would pass it, so which seeds
        // it reads is checked too.
        let read = try Self.seeds.map { try Self.compare(Array($0.utf8)) }
        #expect(read == Self.seedsReadBySimpleRequest)
    }

    @Test func mutatedRequestsAreNeverReadDifferently() throws {
        var random = SplitMix64(seed: 0x7111E5)
        var simple = 0
        for round in 0..<6000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[index] = Self.alphabet[Int(random.next() % UInt64(Self.alphabet.count))]
                case 1: bytes.insert(Self.alphabet[Int(random.next() % UInt64(Self.alphabet.count))], at: index)
                case 2: bytes.remove(at: index)
                default: bytes[index] ^= 0x20
                }
            }
            if try Self.compare(bytes) { simple += 1 }
        }
        // The mutations must leave plenty in the simple form, or the comparison proves little.
        #expect(simple > 1000)
    }

    /// Checks one input; returns whether ``SimpleRequest`` read it.
    @discardableResult
    static func compare(_ bytes: [UInt8]) throws -> Bool {
        let scan = bytes.withUnsafeBytes { SimpleRequest.scan($0, maxHeadBytes: maxHeadBytes, takes: Self.takes) }
        guard case .request(let request, let length) = scan else { return false }
        var configuration = ServerConfiguration(root: "/")
        configuration.maxHeadBytes = maxHeadBytes
        let channel = EmbeddedChannel(
            handler: ByteToMessageHandler(
                HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: configuration.decoderLimits)))
        defer { _ = try? channel.finish() }
        let text = String(decoding: bytes[..<length], as: UTF8.self).debugDescription
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes[..<length]))
        } catch {
            Issue.record("NIO refused what SimpleRequest read (\(error)): \(text)")
            return true
        }
        guard case .head(let head)? = try channel.readInbound(as: HTTPServerRequestPart.self),
            case .end? = try channel.readInbound(as: HTTPServerRequestPart.self)
        else {
            Issue.record("NIO did not read one request without a body: \(text)")
            return true
        }
        #expect(head.method == (request.isHead ? .HEAD : .GET), "\(text)")
        #expect(head.uri == request.uri, "\(text)")
        #expect(head.version == (request.isHTTP10 ? .http1_0 : .http1_1), "\(text)")
        #expect(head.isKeepAlive == request.keepAlive, "\(text)")
        #expect(head.headers.first(name: "if-none-match") == request.ifNoneMatch, "\(text)")
        // What the handler would refuse (400) the fast path must not have answered.
        let hosts = head.headers["host"].count
        #expect(hosts == 1 || (hosts == 0 && head.version == .http1_0), "\(text)")
        return true
    }
}
