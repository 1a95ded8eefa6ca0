import NIOCore
import NIOHTTP1
import Synchronization
import Testing

@testable import HTTPCore

/// The observe stage without a socket: every finished exchange is counted under its route and status, with its
/// duration, and logged with the client's address, which is asked for once per connection.
@Suite struct ExchangeObserverTests {
    final class Counts: RequestCounter {
        let seen = Mutex<[(route: Int, status: Int, nanoseconds: Int64, shard: Int)]>([])
        func record(route: RouteLabel, status: HTTPStatus, nanoseconds: Int64, shard: Int) {
            seen.withLock { $0.append((route.rawValue, status.rawValue, nanoseconds, shard)) }
        }
    }

    @Test func everyExchangeIsCountedAndLogged() throws {
        let counts = Counts()
        var asked = 0
        let lines = try AccessLogTests.lines(.text) { log in
            let observer = ExchangeObserver(counter: counts, shard: 1, accessLog: log)
            var exchange = Exchange(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/a"))
            exchange.route = RouteLabel(rawValue: 3, name: "three")
            let address = try? SocketAddress(ipAddress: "192.0.2.7", port: 4000)
            for status in [HTTPStatus.ok, .requestTimeout] {
                observer.observe(exchange, status: status, bytes: 5, now: exchange.started + .milliseconds(2)) {
                    asked += 1
                    return address
                }
            }
        }
        let seen = counts.seen.withLock { $0 }
        #expect(seen.map(\.route) == [3, 3])
        #expect(seen.map(\.status) == [200, 408])
        #expect(seen.allSatisfy { $0.nanoseconds == 2_000_000 && $0.shard == 1 })
        #expect(asked == 1, "the address is looked up once per connection")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix("192.0.2.7 [") && $0.contains("\"GET /a HTTP/1.1\"") && $0.contains(" 5 2000us ") })
    }

    @Test func withoutAnAccessLogTheAddressIsNeverAsked() {
        let counts = Counts()
        let observer = ExchangeObserver(counter: counts, shard: 0, accessLog: nil)
        let exchange = Exchange(malformedAt: .now())
        observer.observe(exchange, status: .badRequest, bytes: 0, now: .now()) {
            Issue.record("the address was asked for")
            return nil
        }
        #expect(counts.seen.withLock { $0.map(\.route) } == [RouteLabel.invalid.rawValue])
    }
}
