import Dispatch
import Glibc

extension Server {
    /// Makes SIGINT and SIGTERM (or the given signals) start a graceful shutdown instead of killing the process;
    /// the process can then exit 0 once ``blockUntilStopped()`` or ``waitUntilStopped()`` returns.
    public func shutdownOnSignals(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        let sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                configuration.logger.info("Received signal \(number)")
                beginShutdown()
            }
            source.resume()
            return source
        }
        let watcher = SignalWatcher(sources: sources)
        signalSources.withLock { $0.append(watcher) }
    }
}

/// Keeps signal sources alive for the server's lifetime (set once, never mutated, hence safe to share).
final class SignalWatcher: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]

    init(sources: [any DispatchSourceSignal]) {
        self.sources = sources
    }
}
