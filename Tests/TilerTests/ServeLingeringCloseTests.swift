import Foundation
import Testing

/// The lingering close against a real `tiler serve` process (its own process: no other test's sockets near it). A
/// client that keeps sending after the server answered early — as curl does with a huge header — must still get the
/// answer: the server half-closes and reads and discards the rest, where closing with unread input would send a reset
/// that destroys the answer (and fails the client's next send with EPIPE).
@Suite struct ServeLingeringCloseTests {
    /// A blocking TCP client on 127.0.0.1 with a 10 s receive timeout.
    final class Client {
        let socketDescriptor: Int32

        init(port: Int) throws {
            socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var time = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        deinit { close(socketDescriptor) }

        /// Sends all of `text`; the errno on failure.
        func send(_ text: String) -> Int32? {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return errno }
                sent += count
            }
            return nil
        }

        /// Whether bytes can be read within `milliseconds`.
        func readable(within milliseconds: Int32) -> Bool {
            var entry = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) > 0
        }

        /// Everything until the server closes its side (or a receive fails, e.g. reset).
        func readAll() -> (text: String, error: Int32?) {
            var data: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
                if count == 0 { return (String(decoding: data, as: UTF8.self), nil) }
                if count < 0 { return (String(decoding: data, as: UTF8.self), errno) }
                data += chunk[0..<count]
            }
        }
    }

    @Test(arguments: [("a 100 KB header", "431"), ("a malformed request line", "400")])
    func earlyErrorsReachClientsThatSendMore(request name: String, status: String) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (process, _, url) = try ServeCommandTests().start(["serve", fixtures.path("."), "--port", "0"])
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(Int(url.split(separator: ":").last?.filter(\.isNumber) ?? ""))
        let client = try Client(port: port)
        let request =
            status == "431"
            ? "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "a", count: 100_000) : "NOT A REQUEST LINE AT ALL\r\n\r\n"
        #expect(client.send(request) == nil)
        #expect(client.readable(within: 5000), "the server answered")
        for _ in 0..<3 {
            let failure = client.send(String(repeating: "more bytes ", count: 1000))
            #expect(failure == nil, "send failed after the answer: errno \(failure ?? 0)")
            Thread.sleep(forTimeInterval: 0.15)
        }
        let (text, error) = client.readAll()
        #expect(error == nil, "reading the answer failed: errno \(error ?? 0)")
        #expect(text.hasPrefix("HTTP/1.1 \(status) "), "\(text.prefix(80))")
    }
}
