import Dispatch
import Foundation

/// Turns SIGINT/SIGTERM into a call of `handler` on a background queue instead of killing the process, so a
/// long job can stop cleanly (remove temporary files, close sockets) and exit with a message.
final class SignalTrap: @unchecked Sendable {
    // `caughtSignal` is written on the signal queue and read after the job; the lock orders the two.
    private let lock = NSLock()
    private var caughtSignal: Int32?
    private var sources: [DispatchSourceSignal] = []
    private let signals: [Int32]

    /// Starts trapping `signals`; `handler` runs once per delivery, on a private queue.
    init(_ signals: [Int32], handler: @escaping @Sendable () -> Void) {
        self.signals = signals
        let queue = DispatchQueue(label: "tiler.signals")
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                self?.record(number)
                handler()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal caught, if any.
    var caught: Int32? { lock.withLock { caughtSignal } }

    /// Stops trapping: the signals get their default action again.
    func restore() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for number in signals { signal(number, SIG_DFL) }
    }

    private func record(_ number: Int32) {
        lock.withLock { if caughtSignal == nil { caughtSignal = number } }
    }

    /// `SIGINT`, `SIGTERM`, … for a signal number.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
