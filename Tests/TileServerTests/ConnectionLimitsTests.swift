import Foundation
import Testing

@testable import TileServer

#if canImport(Glibc)
    import Glibc
#endif

/// What one client can hold of the server, on 127.0.0.1: every connection state has a deadline (a body declared and
/// never sent, a response never read), request bodies are bounded, `Host` is required as RFC 9112 says, and one
/// address cannot take more than its share of connections.
@Suite struct ConnectionLimitsTests {
    @Test func http11WithoutHostOrWithTwoIsRefused() async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            for head in [
                "GET /healthz HTTP/1.1\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                "GET /healthz HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n",
            ] {
                let connection = try RawHTTPConnection(port: server.port)
                try connection.send(head)
                let response = try connection.readResponse()
                #expect(response.status == 400, "\(head.debugDescription)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("Host"))
                #expect(connection.waitForClose())
            }
            // HTTP/1.0 may leave Host out.
            let old = try RawHTTPConnection(port: server.port)
            try old.send("GET /healthz HTTP/1.0\r\n\r\n")
            #expect(try old.readResponse().status == 200)
        }
    }

    @Test func aDeclaredBodyThatNeverArrivesIsTimedOut() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.headTimeout = .seconds(1)
        try await withServer(fixture, configuration) { server in
            // A body declared and never sent, and one trickled a byte at a time: both must be whole within the head
            // timeout. 100 of each at once, while a normal client keeps being answered.
            let silent = try (0..<100).map { _ in try RawHTTPConnection(port: server.port, timeout: 20) }
            let trickling = try (0..<100).map { _ in try RawHTTPConnection(port: server.port, timeout: 20) }
            for connection in silent {
                try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
            }
            for connection in trickling {
                try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n")
            }
            let start = ContinuousClock.now
            // On a thread of its own: a task resumed after its sleep may wait in a loaded run's queue for longer than
            // the idle timeout, and the server would rightly have closed the idle connection meanwhile.
            let answered = try await blocking {
                let normal = try RawHTTPConnection(port: server.port)
                var statuses: [Int] = []
                for _ in 0..<5 {
                    try normal.request("/healthz")
                    statuses.append(try normal.readResponse().status)
                    for connection in trickling { try? connection.send("x") }
                    usleep(300_000)
                }
                return statuses
            }
            #expect(answered == [200, 200, 200, 200, 200])
            let outcomes = try await blocking {
                (silent + trickling).map { connection in
                    // A 408, unless the deadline passed before the server had even read the head (a loaded machine):
                    // then the connection is closed without one.
                    ((try? connection.readResponse())?.status, connection.waitForClose())
                }
            }
            #expect(outcomes.allSatisfy { ($0.0 == nil || $0.0 == 408) && $0.1 }, "\(outcomes.filter { !(($0.0 == nil || $0.0 == 408) && $0.1) })")
            // A body must not buy a client more than a head would: dropped at the deadline, not never.
            #expect(ContinuousClock.now - start < .seconds(60))
        }
    }

    @Test func aSmallBodyIsReadAndIgnoredAndALargeOneRefused() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.maxRequestBodyBytes = 1000
        try await withServer(fixture, configuration) { server in
            let small = try RawHTTPConnection(port: server.port)
            try small.send("GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try small.readResponse().status == 200)
            try small.request("/healthz")
            #expect(try small.readResponse().status == 200)

            let declared = try RawHTTPConnection(port: server.port)
            try declared.send("GET /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
            #expect(try declared.readResponse().status == 413)
            #expect(declared.waitForClose())

            let chunked = try RawHTTPConnection(port: server.port)
            let chunk = String(repeating: "z", count: 600)
            try chunked.send("GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n")
            #expect(try chunked.readResponse().status == 413)
            #expect(chunked.waitForClose())
        }
    }

    @Test func aPipeliningClientThatDoesNotReadIsNotAnsweredAheadAndIsDropped() async throws {
        let fixture = try PyramidFixture()
        let size = 8 << 20
        try fixture.write(String(repeating: "p", count: size), to: "Public/large.bin")
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        configuration.sendTimeout = .seconds(1)
        try await withServer(fixture, configuration) { server in
            let staller = try RawHTTPConnection(port: server.port, timeout: 30)
            try staller.send(String(repeating: "GET /large.bin HTTP/1.1\r\nHost: t\r\n\r\n", count: 16))
            // Not read until the server gives up on it (the send timeout, to the millisecond, is ConnectionStateTests').
            #expect(await eventually(within: 30) { server.statistics.sendTimeouts >= 1 })
            let end = try await blocking { staller.waitForEnd() }
            // Reset, not closed: a graceful close would keep the unsent megabytes in an orphaned FIN-WAIT-1 socket
            // for minutes, and the client, its window shut, would never see the end.
            #expect(end == .reset)
            #expect(RawHTTPConnection.finWait1Sockets(port: server.port) == 0)
            #expect(server.statistics.sendTimeouts >= 1)
            // Backpressure: answers were not produced ahead of a client that took none (16 × 8 MiB would have been
            // queued in memory); the first, and at most the next one, were.
            let answered = server.context.metrics.snapshot().requests(route: .staticFile, status: .ok)
            #expect(answered <= 2, "\(answered) answers produced for a client that read none")
            // Everyone else is still answered.
            let normal = try RawHTTPConnection(port: server.port)
            try normal.request("/healthz")
            #expect(try normal.readResponse().status == 200)
        }
    }

    @Test func aCrowdBehindOneAddressIsAdmittedWhileDescriptorsArePlentiful() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.maxConnectionsPerAddress = 3
        configuration.perAddressCapThreshold = 12
        try await withServer(fixture, configuration) { server in
            // Ten browsers' worth behind one NAT: more than the cap, fewer than the threshold — all served.
            let crowd = try (0..<10).map { _ in try RawHTTPConnection(port: server.port) }
            for connection in crowd {
                try connection.request("/healthz")
                #expect(try connection.readResponse().status == 200)
            }
            #expect(server.statistics.connectionsRefused == 0)
            // Past the threshold the cap bites: this address holds more than 3.
            let more = try (0..<2).map { _ in try RawHTTPConnection(port: server.port) }
            for connection in more {
                try? connection.request("/healthz")
                _ = try? connection.readResponse()
            }
            let late = try RawHTTPConnection(port: server.port)
            try? late.request("/healthz")
            #expect(late.waitForClose())
            #expect(server.statistics.connectionsRefused >= 1)
            withExtendedLifetime((crowd, more)) {}
        }
    }

    @Test func oneAddressHoldsAtMostItsShareOfConnections() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.maxConnectionsPerAddress = 3
        configuration.perAddressCapThreshold = 0  // descriptors "short" from the first connection
        try await withServer(fixture, configuration) { server in
            var held = try (0..<3).map { _ in try RawHTTPConnection(port: server.port) }
            for connection in held {
                try connection.request("/healthz")
                #expect(try connection.readResponse().status == 200)
            }
            let extra = try RawHTTPConnection(port: server.port)
            try? extra.request("/healthz")
            #expect(extra.waitForClose())
            #expect(server.statistics.connectionsRefused == 1)
            // The connections it holds keep working; once one closes, a new one is admitted.
            try held[0].request("/healthz")
            #expect(try held[0].readResponse().status == 200)
            held.removeLast()
            var admitted = false
            for _ in 0..<50 where !admitted {
                try await Task.sleep(for: .milliseconds(50))
                let next = try RawHTTPConnection(port: server.port)
                try? next.request("/healthz")
                admitted = (try? next.readResponse().status) == 200
            }
            #expect(admitted)
            withExtendedLifetime(held) {}
        }
    }
}
