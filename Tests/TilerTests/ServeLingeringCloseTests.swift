import Foundation
import Testing

/// The lingering close against a real `tiler serve` process (its own process: no other test's sockets near it). A
/// client that keeps sending after the server answered early — as curl does with a huge header — must still get the
/// answer: the server half-closes and reads and discards the rest, where closing with unread input would send a reset
/// that destroys the answer (and fails the client's next send with EPIPE).
@Suite struct ServeLingeringCloseTests {
    @Test(arguments: [("a 100 KB header", "431"), ("a malformed request line", "400")])
    func earlyErrorsReachClientsThatSendMore(request name: String, status: String) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (process, _, url) = try ServeCommandTests().start(["serve", fixtures.path("."), "--port", "0"])
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(Int(url.split(separator: ":").last?.filter(\.isNumber) ?? ""))
        let client = try TCPClient(port: port)
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
