import ArgumentParser
import Foundation

/// The one place `tiler` receives SIGINT, SIGTERM and SIGHUP.
///
/// Both are blocked in the main thread before any other thread exists, so every thread inherits the block, and
/// a dedicated thread takes them with `sigwait`. A long job installs a handler (the slicer cancels and cleans up,
/// the server shuts down gracefully); with none installed, the signal gets its default action and the process
/// ends as it would have anyway. Why not dispatch signal sources: on Linux they read a signalfd, which sees a
/// signal only while every thread blocks it, and a signal arriving at a thread that does not is lost — a
/// handler installed after worker threads exist could then never fire.
final class SignalHub: @unchecked Sendable {
    /// The process's hub; call ``start()`` first thing in `main`.
    static let shared = SignalHub()

    /// The signals the hub takes.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    // `handler` is read by the waiting thread and written by jobs; the lock orders the two.
    private let lock = NSLock()
    private var handler: (@Sendable (Int32) -> Void)?
    private var started = false

    /// Blocks the signals in the calling thread (and so in every thread it starts later) and starts the waiter.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        var set = Self.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let thread = Thread { [self] in wait(for: Self.signalSet()) }
        thread.name = "tiler.signals"
        thread.start()
    }

    /// Makes `handler` receive the signals (on the hub's thread) until ``clear()``; replaces any previous one.
    func setHandler(_ handler: @escaping @Sendable (Int32) -> Void) {
        lock.withLock { self.handler = handler }
    }

    /// Restores the default action: the next signal ends the process.
    func clear() {
        lock.withLock { handler = nil }
    }

    /// Runs `job`, handing it a cancellation check that turns true on SIGINT/SIGTERM; `onSignal`, if given, also
    /// runs on each delivery (to stop work that does not poll). A job that stops with `CancellationError` ends the
    /// command with exit status 130 and a one-line message.
    func whileCancellable<Result>(
        onSignal: (@Sendable () -> Void)? = nil, _ job: (_ isCancelled: @escaping () -> Bool) throws -> Result
    ) throws -> Result {
        let caught = Locked<Int32?>(nil)
        setHandler { number in
            caught.withLock { $0 = $0 ?? number }
            onSignal?()
        }
        defer { clear() }
        do {
            return try job { caught.withLock { $0 != nil } }
        } catch is CancellationError {
            let name = caught.withLock { $0 }.map(Self.name) ?? "a signal"
            FileHandle.standardError.write(Data("\ntiler: interrupted by \(name); nothing was written\n".utf8))
            throw ExitCode(130)
        }
    }

    private func wait(for set: sigset_t) {
        var set = set
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            if let handler = lock.withLock({ self.handler }) {
                handler(number)
            } else {
                // No job wants it: die of it, as if it had never been blocked.
                signal(number, SIG_DFL)
                var one = sigset_t()
                sigemptyset(&one)
                sigaddset(&one, number)
                pthread_sigmask(SIG_UNBLOCK, &one, nil)
                raise(number)
            }
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }

    /// `SIGINT`, `SIGTERM`, … for a signal number.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
