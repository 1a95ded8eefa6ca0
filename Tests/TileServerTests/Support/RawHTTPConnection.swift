import Foundation
import Glibc

/// A response as read off the wire.
struct RawResponse {
    /// The status code.
    let status: Int
    /// Header fields in order, names as sent.
    let headers: [(name: String, value: String)]
    /// The body bytes (empty for HEAD and 304).
    let body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }

    /// The first response in `bytes`, removed from them; nil (nothing removed) while it is incomplete. `head` says it
    /// answers a HEAD request (no body whatever `Content-Length` says).
    static func parse(_ bytes: inout [UInt8], head: Bool) throws -> RawResponse? {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw RawClientError(description: "bad status line \(lines[0])")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = head || status == 304 ? 0 : Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
        guard bytes.count - end.upperBound >= length else { return nil }
        let body = Array(bytes[end.upperBound..<(end.upperBound + length)])
        bytes.removeFirst(end.upperBound + length)
        return RawResponse(status: status, headers: headers, body: body)
    }
}

/// Why the raw client failed.
struct RawClientError: Error, CustomStringConvertible {
    let description: String
    var code: Int32 = 0
}

/// A blocking TCP connection to the server under test that sends exactly the bytes it is given (no URL
/// normalisation), and parses responses by hand. Every read is bounded by a receive timeout. Used by one thread at a
/// time (hence `@unchecked Sendable`: tests hand it to ``blocking(_:)``).
final class RawHTTPConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds without data. `receiveBuffer` (bytes), when
    /// given, caps the socket's receive buffer before connecting, so that a client that does not read stops the server's
    /// sending after a few kilobytes.
    init(port: Int, timeout: Double = 10, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawClientError(description: "socket() failed") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            // No close here: the object is fully initialised, so throwing runs deinit, which closes the socket. Closing
            // it twice closed whatever another test had just opened under the same number (recv() failing with EBADF).
            throw RawClientError(description: "connect() failed: errno \(errno)")
        }
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Ends the connection (both directions); the descriptor itself is released with the object, never twice.
    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends `text`'s UTF-8 bytes as they are.
    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends `bytes` as they are.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawClientError(description: "send() failed: errno \(errno)") }
            sent += count
        }
    }

    /// Whether bytes (or end of input) can be read within `milliseconds`.
    func hasData(waitingMilliseconds milliseconds: Int32) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Closes the sending side (the server sees end of input).
    func shutdownWriting() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Sends a `GET` (or `method`) for `target` with `Host` and the given extra header lines.
    func request(_ target: String, method: String = "GET", headers: [String] = []) throws {
        try send("\(method) \(target) HTTP/1.1\r\nHost: test\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Reads one response; `head` says it answers a HEAD request (no body whatever Content-Length says).
    func readResponse(head: Bool = false) throws -> RawResponse {
        while true {
            if let response = try RawResponse.parse(&buffer, head: head) { return response }
            guard try fill() else { throw RawClientError(description: "connection closed inside a response") }
        }
    }

    /// Reads and discards until the server closes the connection; `true` if it did (EOF or reset) before the
    /// receive timeout.
    func waitForClose() -> Bool {
        waitForEnd() != .timeout
    }

    /// Everything the server sends until it closes the connection (an event stream), with the time each read came.
    func readUntilClose() throws -> [(bytes: [UInt8], at: ContinuousClock.Instant)] {
        var reads: [(bytes: [UInt8], at: ContinuousClock.Instant)] = []
        if !buffer.isEmpty { reads.append((buffer, .now)) }
        buffer.removeAll()
        while try fill() {
            reads.append((buffer, .now))
            buffer.removeAll()
        }
        return reads
    }

    /// How a connection ended for its client.
    enum End: Equatable {
        /// A graceful close: EOF after the bytes sent.
        case closed
        /// A reset: the bytes not read yet are gone.
        case reset
        /// Still open when the receive timeout passed (or another error).
        case timeout
    }

    /// Reads and discards until the server ends the connection or the receive timeout passes; says how it ended.
    func waitForEnd() -> End {
        while true {
            do {
                guard try fill() else { return .closed }
                buffer.removeAll(keepingCapacity: true)
            } catch {
                return (error as? RawClientError)?.code == ECONNRESET ? .reset : .timeout
            }
        }
    }

    /// Sockets on this machine in TCP state `FIN-WAIT-1` whose local port is `port` (from `/proc/net/tcp` and
    /// `tcp6`): a server's orphaned sockets still holding unsent bytes after a graceful close.
    static func finWait1Sockets(port: Int) -> Int {
        let hexPort = String(port, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - hexPort.count)) + hexPort
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3 else { continue }
                if fields[1].hasSuffix(":" + padded) && fields[3] == "04" { count += 1 }
            }
        }
        return count
    }

    /// Reads more bytes; `false` at EOF.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        guard count > 0 else {
            let code = errno
            throw RawClientError(description: "recv() failed: errno \(code)", code: code)
        }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
