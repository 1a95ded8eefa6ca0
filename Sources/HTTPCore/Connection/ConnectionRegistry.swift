import NIOCore
import Synchronization

/// The open client connections, so that shutdown can ask each to finish and wait for them to close; it also caps the
/// connections of one client address and counts the connections dropped by the server's own limits.
package final class ConnectionRegistry: Sendable {
    private struct State {
        package var channels: [ObjectIdentifier: any Channel] = [:]
        /// Open connections by client address (IP, without the port); addresses with none are removed.
        package var perAddress: [String: Int] = [:]
    }

    /// The most connections one address may hold once ``capThreshold`` connections are open (0: no cap).
    package let maxPerAddress: Int
    /// Open connections (all addresses) from which the per-address cap applies: descriptors are running short.
    package let capThreshold: Int
    private let state = Mutex(State())
    private let refusedCount = Atomic<Int>(0)
    private let sendTimeoutCount = Atomic<Int>(0)

    /// Creates an empty registry that admits at most `maxPerAddress` connections per client address (0: any number)
    /// while `capThreshold` or more connections are open, and any number before.
    package init(maxPerAddress: Int = 0, capThreshold: Int = 0) {
        self.maxPerAddress = maxPerAddress
        self.capThreshold = capThreshold
    }

    /// Adds `channel` until it closes, unless descriptors run short (``capThreshold`` connections open) and its
    /// address already holds ``maxPerAddress`` connections: then it is not added, counted as refused, and `false`
    /// returned (the caller closes it).
    ///
    /// - Complexity: O(1) amortised, under a lock shared by the event loops (taken once per connection, not per request).
    package func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let address = channel.remoteAddress?.ipAddress ?? ""
        let admitted = state.withLock { state in
            let open = state.perAddress[address, default: 0]
            if maxPerAddress > 0 && open >= maxPerAddress && state.channels.count >= capThreshold { return false }
            state.perAddress[address] = open + 1
            state.channels[id] = channel
            return true
        }
        guard admitted else {
            refusedCount.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                state.channels.removeValue(forKey: id)
                let left = state.perAddress[address, default: 1] - 1
                state.perAddress[address] = left > 0 ? left : nil
            }
        }
        return true
    }

    /// Counts a connection closed because its client took no response bytes for the send timeout.
    package func countSendTimeout() {
        sendTimeoutCount.wrappingAdd(1, ordering: .relaxed)
    }

    /// How many connections are open.
    package var count: Int { state.withLock { $0.channels.count } }

    /// Connections closed at once because their address held the most allowed.
    package var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// Connections closed because their client stopped taking response bytes.
    package var sendTimeouts: Int { sendTimeoutCount.load(ordering: .relaxed) }

    /// The open connections.
    package var all: [any Channel] { state.withLock { Array($0.channels.values) } }
}
