import NIOCore
import Synchronization

/// The open client connections, so that shutdown can ask each to finish and wait for them to close.
final class ConnectionRegistry: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Creates an empty registry.
    init() {}

    /// Adds `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// How many connections are open.
    var count: Int { channels.withLock { $0.count } }

    /// The open connections.
    var all: [any Channel] { channels.withLock { Array($0.values) } }
}
