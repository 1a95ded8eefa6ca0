import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `tiler serve` out of descriptors, as a flood of connections from one client leaves it: the real binary under a
/// low open-file limit (`prlimit`), so the test process keeps its own.
@Suite struct ServeDescriptorExhaustionTests {
    /// The status of `GET target` on `client`'s connection (kept alive), or `nil` if no whole answer came.
    static func status(of target: String, on client: TCPClient) -> Int? {
        guard client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n") == nil else { return nil }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < 65536 {
            let count = chunk.withUnsafeMutableBytes { recv(client.descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += chunk[..<count]
            let text = String(decoding: received, as: UTF8.self)
            if let head = text.range(of: "\r\n\r\n"), let length = contentLength(text[..<head.lowerBound]),
                received.count >= text.utf8.distance(from: text.startIndex, to: head.upperBound) + length
            {
                return Int(text.split(separator: " ").dropFirst().first ?? "")
            }
        }
        return nil
    }

    private static func contentLength(_ head: Substring) -> Int? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }

    /// CPU seconds `pid` has used (user and system).
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14 and 15.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return Double(Int(fields[11])! + Int(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    // Synchronous on purpose: its waits (Thread.sleep, blocking sockets) keep their length however busy the
    // cooperative pool the async tests share is.
    @Test func runningOutOfDescriptorsBacksOffLogsOnceAndKeepsServing() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let server = try ServeLoggingTests.Running(
            [
                "serve", try ServeLoggingTests.pyramid(fixtures), "--port", "0", "--threads", "1", "--max-connections-per-address", "0",
                "--idle-timeout", "600",
            ],
            descriptorLimit: 96)
        defer { server.stop() }
        let port = try #require(Int(server.base.split(separator: ":").last ?? ""), "no URL announced: \(server.stderr)")
        let fdsAtStart = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.processIdentifier)/fd").count) ?? -1
        let first = try TCPClient(port: port, timeout: 20)
        #expect(Self.status(of: "/healthz", on: first) == 200)

        // More connections than the server has descriptors: the kernel completes them all into the backlog.
        var flood = try (0..<200).map { _ in try TCPClient(port: port, timeout: 20) }
        Thread.sleep(forTimeInterval: 1)
        let before = try Self.cpuSeconds(server.process.processIdentifier)
        let started = Date()
        Thread.sleep(forTimeInterval: 3)
        let used = try Self.cpuSeconds(server.process.processIdentifier) - before
        let elapsed = Date().timeIntervalSince(started)
        // Retrying accept at once spins a core (the issue measured 107%); backing off uses next to nothing.
        #expect(used < 0.25 * elapsed, "\(used) CPU seconds in \(elapsed) s while out of descriptors")
        // The connections it has are still served, and the failure is logged, not once per failed accept.
        #expect(
            Self.status(of: "/healthz", on: first) == 200,
            "descriptors at start \(fdsAtStart), now \((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.processIdentifier)/fd").count) ?? -1); \(server.stderr.suffix(1500))"
        )
        let lines = server.stderr.components(separatedBy: "Accepting a connection failed").count - 1
        #expect(lines >= 1 && lines <= 2, "\(lines) lines: \(server.stderr.suffix(2000))")

        // Once the flood leaves, new clients are served again.
        flood.removeAll()
        var served = false
        for _ in 0..<40 where !served {
            Thread.sleep(forTimeInterval: 0.25)
            served = (try? TCPClient(port: port, timeout: 20)).flatMap { Self.status(of: "/healthz", on: $0) } == 200
        }
        #expect(served)
    }
}
