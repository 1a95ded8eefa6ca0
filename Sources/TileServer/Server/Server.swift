import Dispatch
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// A running Tiler HTTP server: every `*.dzi` pyramid under ROOT, the visible-rect query, `/metrics`, `/healthz`
/// and the viewer, on SwiftNIO.
///
/// One lifecycle, the same in production and in tests: ``start(_:)`` returns once it listens on ``port``;
/// ``shutdown()`` stops it gracefully and returns once it has stopped (``waitUntilStopped()`` waits for that
/// without starting it). `tiler serve` bridges these to its synchronous `run()` and calls ``shutdown()`` on SIGINT
/// or SIGTERM; the tests call them directly.
public final class Server: Sendable {
    /// The configuration it was started with.
    public let configuration: ServerConfiguration
    /// The TCP port it listens on (the one the system chose when the configuration said 0).
    public let port: Int
    /// The URL to open, e.g. `http://127.0.0.1:8080/` (a wildcard host is shown as the loopback address).
    public let url: String
    /// The port of the metrics listener (``ServerConfiguration/metricsPort``), or nil when there is none.
    public let metricsPort: Int?
    /// The port of the plain-HTTP listener redirecting to HTTPS (``ServerConfiguration/redirectHTTPPort``), or nil.
    public let redirectPort: Int?
    let context: Services
    private let parts: ServerRuntime
    private let channel: any Channel
    private let metricsChannel: (any Channel)?
    private let redirectChannel: (any Channel)?
    private let rescanTask: RepeatedTask
    private let trimTask: RepeatedTask
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchGroup()

    /// Starts a server: validates the configuration, scans ROOT once, binds, and starts rescanning ROOT.
    ///
    /// - Throws: ``ServerError`` for a bad configuration, a missing ROOT or an address it cannot listen on.
    public static func start(_ configuration: ServerConfiguration) async throws -> Server {
        let parts = try ServerRuntime(configuration)
        do {
            _ = try await parts.threadPool.runIfActive { parts.context.catalog.rescan() }
            // Wrong credentials, a missing bucket: one clear line at start, not a server that serves nothing.
            if let problem = parts.objectStoreProblem() { throw ServerError(problem) }
            let channel = try await parts.bootstrap().bind(host: configuration.host, port: configuration.port).get()
            var listeners: [any Channel] = []
            do {
                var metrics: (any Channel)?
                if let metricsPort = configuration.metricsPort {
                    do {
                        metrics = try await MetricsListener.bind(
                            host: configuration.metricsHost, port: metricsPort, group: parts.group, services: parts.context)
                        listeners.append(metrics!)
                    } catch {
                        throw ServerError("cannot listen for metrics on \(configuration.metricsHost):\(metricsPort): \(error)")
                    }
                }
                var redirect: (any Channel)?
                if let redirectPort = configuration.redirectHTTPPort {
                    do {
                        redirect = try await HTTPSRedirectListener.bind(
                            host: configuration.host, port: redirectPort, tlsPort: channel.localAddress?.port ?? configuration.port,
                            group: parts.group, idle: TimeAmount(configuration.idleTimeout))
                    } catch {
                        throw ServerError("cannot listen for plain HTTP to redirect on \(configuration.host):\(redirectPort): \(error)")
                    }
                }
                return Server(parts: parts, channel: channel, metricsChannel: metrics, redirectChannel: redirect)
            } catch {
                for listener in [channel] + listeners { try? await listener.close() }
                throw error
            }
        } catch let error as ServerError {
            await parts.shutdown()
            throw error
        } catch {
            await parts.shutdown()
            throw ServerError("cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
    }

    private init(parts: ServerRuntime, channel: any Channel, metricsChannel: (any Channel)?, redirectChannel: (any Channel)?) {
        self.parts = parts
        self.configuration = parts.configuration
        self.context = parts.context
        self.channel = channel
        self.metricsChannel = metricsChannel
        self.redirectChannel = redirectChannel
        self.redirectPort = redirectChannel.map { $0.localAddress?.port ?? parts.configuration.redirectHTTPPort ?? 0 }
        self.port = channel.localAddress?.port ?? parts.configuration.port
        self.metricsPort = metricsChannel.map { $0.localAddress?.port ?? parts.configuration.metricsPort ?? 0 }
        self.url = "\(parts.context.tls == nil ? "http" : "https")://\(Self.displayHost(parts.configuration.host)):\(port)/"
        stopped.enter()
        let catalog = parts.context.catalog
        let pool = parts.threadPool
        let loop = parts.group.next()
        let interval = TimeAmount(parts.configuration.rescanInterval)
        rescanTask = loop.scheduleRepeatedAsyncTask(initialDelay: interval, delay: interval) { _ in
            pool.runIfActive(eventLoop: loop) { _ = parts.rescan() }
        }
        // Give the pages malloc keeps free back to the system once they add up (see ProcessMemory).
        trimTask = loop.scheduleRepeatedAsyncTask(initialDelay: ProcessMemory.trimInterval, delay: ProcessMemory.trimInterval) { _ in
            pool.runIfActive(eventLoop: loop) { ProcessMemory.trimIfWorthwhile() }
        }
        parts.context.inbox?.start()
        let count = catalog.count
        let roots = ([catalog.root].filter { !$0.isEmpty } + catalog.objectRoots.map(\.name)).joined(separator: " and ")
        configuration.logger.info("Serving \(count) image\(count == 1 ? "" : "s") from \(roots) at \(url)")
        if let tls = parts.context.tls {
            configuration.logger.info("HTTPS only (TLS 1.2 and 1.3) with the \(tls.summary)")
        }
        if let redirectPort {
            configuration.logger.info("Plain HTTP at http://\(Self.displayHost(configuration.host)):\(redirectPort)/ is redirected to \(url)")
        }
        if let viewer = parts.context.staticFiles?.root {
            configuration.logger.info("The viewer is served from \(viewer)")
        } else {
            configuration.logger.notice("No viewer installed (no Public/ beside the executable or here): / answers 404; give --public DIR")
        }
        if let metricsPort {
            configuration.logger.info("Metrics and health at http://\(Self.displayHost(configuration.metricsHost)):\(metricsPort)/metrics")
        } else if parts.context.access != nil {
            configuration.logger.notice("Metrics are not served: an access policy is set and --metrics-port is not given")
        }
    }

    /// Rescans ROOT now, walking every folder (what `tiler serve` does on SIGHUP: a file rewritten in place, which its
    /// folder's time does not show, is listed afresh), and returns how many images were added and removed. Runs on a
    /// file thread; safe to call from any thread.
    public func rescan() async -> (added: Int, removed: Int) {
        let parts = self.parts
        let result = try? await parts.threadPool.runIfActive {
            let changes = parts.rescan(full: true)
            return (changes.added.count, changes.removed.count)
        }
        return result ?? (0, 0)
    }

    /// Reads the TLS certificate chain and key again (what `tiler serve` does on SIGHUP) and logs what came of it: new
    /// connections use them, open ones keep theirs; files that do not make a valid pair leave the current ones in use.
    /// Does nothing without TLS. Runs on a file thread; safe to call from any thread.
    ///
    /// - Returns: Whether the files were taken (true without TLS: nothing to take).
    @discardableResult
    public func reloadTLS() async -> Bool {
        guard let tls = context.tls else { return true }
        let logger = configuration.logger
        let result = try? await parts.threadPool.runIfActive { tls.reload() }
        switch result {
        case .success(let summary)?:
            logger.notice("TLS: now using the \(summary)")
            return true
        case .failure(let error)?:
            logger.error("TLS: kept the certificate in use: \(error.description)")
            return false
        case nil:
            return false
        }
    }

    /// Counters and sizes of the cache and the catalog, as `/metrics` shows them.
    public var statistics: ServerStatistics {
        context.statistics
    }

    /// Starts a graceful shutdown (see ``shutdown()``) and returns at once: stop accepting, let every connection answer what it has
    /// received (the last response says `Connection: close`), close idle connections, and after the grace period
    /// close the rest; then stop the threads. Calling it again does nothing.
    private func beginShutdown() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        configuration.logger.info("Shutting down: finishing requests in flight")
        rescanTask.cancel()
        trimTask.cancel()
        context.inbox?.stop()
        let jobs = context.jobs
        let connections = context.connections
        let group = parts.group
        let pool = parts.threadPool
        let renders = context.renders
        let warmer = context.warmer
        let grace = TimeAmount(configuration.shutdownGracePeriod)
        let stopped = self.stopped
        let parts = self.parts
        metricsChannel?.close(promise: nil)
        redirectChannel?.close(promise: nil)
        channel.close().whenComplete { _ in
            let open = connections.all
            for connection in open {
                connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            }
            let loop = group.next()
            let deadline = loop.scheduleTask(in: grace) {
                for connection in connections.all { connection.close(promise: nil) }
            }
            EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop).whenComplete { _ in
                deadline.cancel()
                parts.closeTileFiles(of: nil)
                let flushed = parts.loops.values.map { $0.flushAccessLog() }
                EventLoopFuture.andAllComplete(flushed, on: loop).whenComplete { _ in
                    // Running slices are cancelled (their staging folders removed) before the threads stop.
                    DispatchQueue.global().async {
                        jobs.shutdown()
                        // Renders wait for tile reads on the file threads: stop them first.
                        renders.shutdownGracefully { _ in
                            warmer.shutdownGracefully { _ in
                                parts.shutdownObjectStores {
                                    pool.shutdownGracefully { _ in
                                        group.shutdownGracefully(queue: .global()) { _ in stopped.leave() }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Shuts down gracefully and returns once the server has stopped: it stops accepting, lets every connection
    /// answer what it has received (the last response says `Connection: close`), closes idle connections, closes the
    /// rest after the grace period, then stops the threads. Calling it again (or concurrently) only waits.
    public func shutdown() async {
        beginShutdown()
        await waitUntilStopped()
    }

    /// Whether the listening socket is open (false once ``shutdown()`` has closed it).
    package var isListening: Bool { channel.isActive }

    /// Returns once the server has stopped (after a ``shutdown()`` called elsewhere).
    public func waitUntilStopped() async {
        let stopped = self.stopped
        await withCheckedContinuation { continuation in
            stopped.notify(queue: .global()) { continuation.resume() }
        }
    }

    private static func displayHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "[::1]"
        case _ where host.contains(":"): "[\(host)]"
        default: host
        }
    }
}
