import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client on 127.0.0.1 for tests of the real `tiler serve`: sends bytes as they are, reads with a
/// receive timeout.
final class TCPClient {
    let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a receive gives up after `timeout` seconds without data.
    init(port: Int, timeout: Int = 10) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(descriptor) }

    /// Sends all of `text`; the errno on failure.
    func send(_ text: String) -> Int32? {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return errno }
            sent += count
        }
        return nil
    }

    /// Whether bytes can be read within `milliseconds`.
    func readable(within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Everything until the server closes its side (or a receive fails, e.g. reset).
    func readAll() -> (text: String, error: Int32?) {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (String(decoding: data, as: UTF8.self), nil) }
            if count < 0 { return (String(decoding: data, as: UTF8.self), errno) }
            data += chunk[0..<count]
        }
    }
}
