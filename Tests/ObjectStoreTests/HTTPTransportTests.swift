import Foundation
import NIOCore
import ObjectStoreTestSupport
import Synchronization
import Testing

@testable import ObjectStore

#if canImport(Glibc)
    import Glibc
#endif

/// Retries, timeouts, short bodies and the bound on requests in flight, against real sockets: ``ScriptedServer``.
@Suite struct HTTPTransportTests {
    /// Records the waits the retry policy asks for, and does not wait.
    final class Sleeps: Sendable {
        private let delays = Mutex<[TimeAmount]>([])
        var recorded: [TimeAmount] { delays.withLock { $0 } }

        func policy(maxAttempts: Int) -> RetryPolicy {
            RetryPolicy(
                maxAttempts: maxAttempts, baseDelay: .milliseconds(100), maxDelay: .seconds(2),
                sleep: { delay, eventLoop in
                    self.delays.withLock { $0.append(delay) }
                    return eventLoop.makeSucceededVoidFuture()
                }, jitter: { $0 })
        }
    }

    private func source(_ server: ScriptedServer, _ options: ObjectStoreOptions) throws -> HTTPRangeSource {
        HTTPRangeSource(location: try HTTPLocation(parsing: server.origin + "/data/"), options: options)
    }

    private func failure(_ body: () async throws -> Void) async -> ObjectStoreError? {
        do {
            try await body()
            Issue.record("expected an error")
        } catch let error as ObjectStoreError {
            return error
        } catch {
            Issue.record("not an ObjectStoreError: \(error)")
        }
        return nil
    }

    @Test func unavailableAndResetAnswersAreRetriedWithBackoff() async throws {
        let server = try await ScriptedServer(script: [
            .answer(status: 503, body: "<Error><Code>SlowDown</Code></Error>"), .reset,
            .answer(status: 206, body: "0123456789", headers: ["Content-Range: bytes 0-9/20", "ETag: \"v1\""]),
        ])
        let sleeps = Sleeps()
        let source = try source(server, ObjectStoreOptions(retry: sleeps.policy(maxAttempts: 3)))
        defer { Task { try await source.shutdown() } }
        #expect(try await source.read("a.szi", range: 0..<10, ifMatch: "\"v1\"") == ByteBuffer(string: "0123456789"))
        #expect(server.requests == Array(repeating: "GET /data/a.szi HTTP/1.1", count: 3))
        #expect(sleeps.recorded == [.milliseconds(100), .milliseconds(200)])
        try await server.close()
    }

    @Test func aKeptConnectionCarriesTheNextRequest() async throws {
        let range = ["Content-Range: bytes 0-9/20", "ETag: \"v1\""]
        let server = try await ScriptedServer(script: [.kept(status: 206, body: "0123456789", headers: range)])
        let source = try source(server, ObjectStoreOptions())
        defer { Task { try await source.shutdown() } }
        // Connections are kept per event loop: the reads share one.
        let loop = source.eventLoopGroup.next()
        for _ in 0..<3 {
            #expect(try await source.read("a.szi", range: 0..<10, ifMatch: nil, on: loop).get() == ByteBuffer(string: "0123456789"))
        }
        #expect(server.requests.count == 3)
        #expect(server.mostOpen == 1)
        try await server.close()
    }

    /// A kept-alive connection the store closed just as it was reused costs no attempt and no wait: the request goes
    /// once more on a new connection, here with a policy of one attempt.
    @Test func aKeptConnectionTheStoreClosedIsReplacedAtNoCost() async throws {
        let range = ["Content-Range: bytes 0-9/20", "ETag: \"v1\""]
        let server = try await ScriptedServer(script: [
            .kept(status: 206, body: "0123456789", headers: range), .close, .answer(status: 206, body: "abcdefghij", headers: range),
        ])
        let sleeps = Sleeps()
        let source = try source(server, ObjectStoreOptions(retry: sleeps.policy(maxAttempts: 1)))
        defer { Task { try await source.shutdown() } }
        // Connections are kept per event loop: the reads share one.
        let loop = source.eventLoopGroup.next()
        #expect(try await source.read("a.szi", range: 0..<10, ifMatch: nil, on: loop).get() == ByteBuffer(string: "0123456789"))
        #expect(try await source.read("a.szi", range: 0..<10, ifMatch: nil, on: loop).get() == ByteBuffer(string: "abcdefghij"))
        #expect(server.requests == Array(repeating: "GET /data/a.szi HTTP/1.1", count: 3))
        #expect(sleeps.recorded.isEmpty)
        try await server.close()
    }

    /// The read timeout bounds the wait between bytes, not the whole answer.
    @Test func anAnswerThatKeepsComingIsNotTimedOut() async throws {
        let server = try await ScriptedServer(script: [.dribble(body: "0123456789", every: .milliseconds(60))])
        let source = try source(server, ObjectStoreOptions(readTimeout: .milliseconds(250), retry: Sleeps().policy(maxAttempts: 1)))
        defer { Task { try await source.shutdown() } }
        #expect(try await source.read("a.szi", range: 0..<10, ifMatch: nil) == ByteBuffer(string: "0123456789"))
        try await server.close()
    }

    @Test func whenRetriesRunOutTheStoreIsUnavailableWithAHint() async throws {
        let server = try await ScriptedServer(script: [.answer(status: 503, body: "busy", headers: ["Retry-After: 7"])])
        let sleeps = Sleeps()
        let source = try source(server, ObjectStoreOptions(retry: sleeps.policy(maxAttempts: 4)))
        defer { Task { try await source.shutdown() } }
        let error = await failure { _ = try await source.info("a.szi") }
        #expect(error?.kind == .unavailable && error?.status == 503 && error?.retryAfterSeconds == 7)
        #expect("\(error!)" == "object store \(server.origin)/data/: HEAD a.szi: unavailable (503 Service Unavailable), retry after 7 s")
        #expect(server.requests.count == 4 && sleeps.recorded == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        try await server.close()
    }

    @Test func aBodyShorterThanItsLengthIsAnErrorNeverShortData() async throws {
        let server = try await ScriptedServer(script: [.truncated(announced: 100, body: "only part of it")])
        let sleeps = Sleeps()
        let source = try source(server, ObjectStoreOptions(retry: sleeps.policy(maxAttempts: 2)))
        defer { Task { try await source.shutdown() } }
        let error = await failure { _ = try await source.read("a.szi", range: 0..<100) }
        #expect(error?.kind == .unavailable, "\(String(describing: error))")
        #expect(server.requests.count == 2)
        try await server.close()
    }

    @Test func aResetMidBodyIsAnError() async throws {
        // 206 headers promise 10 bytes; 3 arrive, then the connection is reset by the retry's step.
        let server = try await ScriptedServer(script: [.truncated(announced: 10, body: "012"), .reset])
        let source = try source(server, ObjectStoreOptions(retry: .never))
        defer { Task { try await source.shutdown() } }
        let error = await failure { _ = try await source.read("a.szi", range: 0..<10) }
        #expect(error?.kind == .unavailable && server.requests.count == 1)
        try await server.close()
    }

    @Test func aSilentStoreTimesOut() async throws {
        let server = try await ScriptedServer(script: [.silent])
        // The request timeout an hour away: only the read timeout can end this read (a full test run may resume this
        // test minutes late, so its wall time says nothing).
        let options = ObjectStoreOptions(readTimeout: .milliseconds(200), requestTimeout: .hours(1), retry: .never)
        let source = try source(server, options)
        defer { Task { try await source.shutdown() } }
        let error = await failure { _ = try await source.info("a.szi") }
        #expect(error?.kind == .timeout && error?.retryAfterSeconds == 1, "\(String(describing: error))")
        try await server.close()
    }

    @Test func refusedConnectionsAreUnavailable() async throws {
        // A port bound but not listening: connections to it are refused, and no other process can take it meanwhile.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(socket, $0, length) == 0, getsockname(socket, $0, &length) == 0 else { throw GatewayError(message: "bind failed") }
            }
        }
        let origin = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        // AsyncHTTPClient's pool retries refused connections with its own backoff: a refused store fails after a while.
        let options = ObjectStoreOptions(connectTimeout: .milliseconds(300), retry: .never)
        let source = HTTPRangeSource(location: try HTTPLocation(parsing: origin + "/"), options: options)
        defer { Task { try await source.shutdown() } }
        // How long it takes is AsyncHTTPClient's pool retrying with its own backoff: 0.3 to 5 s alone, up to minutes in
        // a full test run whose other suites hold the threads, so no bound on time is asserted here.
        let error = await failure { _ = try await source.info("a.szi") }
        #expect(error?.kind == .unavailable && error?.status == nil, "\(String(describing: error))")
        #expect(error?.detail.lowercased().contains("refused") == true, "\(String(describing: error))")
    }

    @Test func aServerIgnoringRangeStillGivesTheRangeAndWrongRangesAreMalformed() async throws {
        let server = try await ScriptedServer(script: [
            .answer(status: 200, body: "0123456789"), .answer(status: 206, body: "23", headers: ["Content-Range: bytes 2-3/10"]),
        ])
        let source = try source(server, ObjectStoreOptions(retry: .never))
        defer { Task { try await source.shutdown() } }
        #expect(try await source.read("a", range: 3..<6) == ByteBuffer(string: "345"))
        let error = await failure { _ = try await source.read("a", range: 4..<6) }
        #expect(error?.kind == .malformed && error?.detail.contains("bytes 2-3/10") == true)
        try await server.close()
    }

    @Test func requestsInFlightAreBounded() async throws {
        let server = try await ScriptedServer(script: [.slow(delay: .milliseconds(100), body: "x")])
        let source = try source(server, ObjectStoreOptions(maxConcurrentRequests: 3, retry: .never))
        defer { Task { try await source.shutdown() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask { _ = try await source.read("k\(index)", range: 0..<1) }
            }
            try await group.waitForAll()
        }
        // Requests in flight, not connections open: a connection the client is done with stays open at the server
        // until its close is seen there, which on busy cores can come after the client's next connection.
        #expect(server.requests.count == 12 && server.mostWaiting <= 3 && server.mostWaiting >= 2, "most waiting: \(server.mostWaiting)")
        #expect(source.transport.limiter.load == (0, 0))
        try await server.close()
    }

    @Test func backoffIsCappedAndJittered() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .milliseconds(500), jitter: { $0 / 2 })
        #expect((1...5).map { policy.delay(afterAttempt: $0, retryAfterSeconds: nil) } == [50, 100, 200, 250, 250].map { .milliseconds($0) })
        let honest = RetryPolicy(maxDelay: .seconds(2), jitter: { _ in 0 })
        #expect(honest.delay(afterAttempt: 1, retryAfterSeconds: 1) == .seconds(1))
        #expect(honest.delay(afterAttempt: 1, retryAfterSeconds: 30) == .zero)
    }
}
