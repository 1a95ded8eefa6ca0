import ArgumentParser
import Foundation
import NIOCore
import ObjectStore
import Slicing
import TileSources

/// The client of a ``StoreDestination``'s bucket for one `tiler slice` run: checks the bucket before slicing, sweeps
/// uploads killed slices left, and publishes the staged file. Call ``shutdown()`` before the process exits.
final class StorePublisher {
    /// Parts of 16 MiB (larger for files past 156 GiB, so that 10,000 parts suffice); S3 wants 5 MiB but for the last.
    static let partSize = 16 << 20
    /// Parts sent at once: memory stays under this many parts' bytes.
    static let partsInFlight = 4
    /// Uploads to the key started longer ago than this are leftovers of killed slices.
    static let leftoverAge: TimeInterval = 24 * 3600

    let destination: StoreDestination
    private let client: S3Client

    /// A client from the AWS variables and shared files (`environment`); credentials are required.
    ///
    /// - Throws: `CommandFailure` naming the destination: half a key pair, an unknown profile, a bad endpoint, no keys.
    init(_ destination: StoreDestination, environment: [String: String]) throws {
        let configuration: S3Configuration
        do {
            configuration = try S3Configuration.fromEnvironment(destination.location, environment: environment)
        } catch {
            throw CommandFailure("cannot write \(destination.url): \(error)")
        }
        guard configuration.credentials != nil else {
            throw CommandFailure(
                "cannot write \(destination.url): no credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)")
        }
        self.destination = destination
        self.client = S3Client(configuration: configuration)
    }

    /// Closes the client's connections.
    func shutdown() {
        let client = client
        try? BlockingBridge.run { try await client.shutdown() }
    }

    /// Lists the key (one listing of at most one entry), before any slicing: wrong keys, a missing bucket or a store that
    /// cannot be reached fail now, and so does an existing object without `force`.
    func check(force: Bool) throws {
        let (client, key) = (client, destination.key)
        let found: [ObjectInfo]
        do {
            found = try BlockingBridge.run {
                try await client.listPage(prefix: key, maxKeys: 1, on: client.eventLoopGroup.any()).get().objects
            }
        } catch {
            throw CommandFailure("cannot write \(destination.url): \(error)")
        }
        if !force, found.contains(where: { $0.key == key }) {
            throw CommandFailure("\(destination.url) exists: give --force to replace it once the new one is complete")
        }
    }

    /// Aborts the uploads to the key that were started more than a day ago (slices killed while uploading); gives one
    /// line for each.
    func sweepLeftovers(now: Date = Date()) throws -> [String] {
        let (client, key, url) = (client, destination.key, destination.url)
        let cutoff = now.addingTimeInterval(-Self.leftoverAge)
        do {
            return try BlockingBridge.run {
                let stale = try await client.pendingUploads(prefix: key).filter { $0.key == key && ($0.initiated ?? .distantPast) < cutoff }
                var lines: [String] = []
                for upload in stale {
                    try await client.abortUpload(upload.key, uploadID: upload.uploadID)
                    let started = upload.initiated.map { " started \(ISO8601DateFormatter().string(from: $0))" } ?? ""
                    lines.append("aborted an unfinished upload to \(url)\(started), left by a killed slice")
                }
                return lines
            }
        } catch {
            throw CommandFailure("cannot write \(destination.url): \(error)")
        }
    }

    /// Starts the multipart upload the slice streams into (``StreamingUpload``); `tiff`: the container is a TIFF.
    /// `onFailure` is called, once, if the upload fails while the slice runs (it cancels the slice).
    ///
    /// - Throws: `CommandFailure` naming the destination and the store's answer.
    func start(tiff: Bool, onFailure: @escaping @Sendable () -> Void) throws -> StreamingUpload {
        let (client, key, url) = (client, destination.key, destination.url)
        let contentType = tiff ? "image/tiff" : "application/zip"
        do {
            let uploadID = try BlockingBridge.run { try await client.createUpload(key, contentType: contentType) }
            return StreamingUpload(client: client, key: key, uploadID: uploadID, tiff: tiff, partSize: Self.partSize, onFailure: onFailure)
        } catch {
            throw CommandFailure("cannot write \(url): \(error)")
        }
    }

    /// Sends the rest of `upload` once the slice is done (see ``StreamingUpload/finish(front:)``) and completes
    /// it: the object appears whole. SIGINT and SIGTERM abort it.
    ///
    /// - Throws: `CommandFailure` naming the destination and the store's answer (the upload aborted); `ExitCode(130)`
    ///   after an interrupt.
    func publish(_ upload: StreamingUpload, front: String?) throws {
        let caught = Locked<Int32?>(nil)
        SignalHub.shared.setHandler { number in
            caught.withLock { $0 = $0 ?? number }
            upload.cancel()
        }
        defer { SignalHub.shared.clear() }
        do {
            try upload.finish(front: front)
        } catch {
            try abort(upload, after: error)
            if let number = caught.withLock({ $0 }) {
                StandardError.print("\ntiler: interrupted by \(SignalHub.name(number)); nothing was written to \(destination.url)")
                throw ExitCode(130)
            }
            throw CommandFailure("cannot write \(destination.url): \(error)")
        }
    }

    /// Aborts `upload` (the slice or the upload failed); throws when even that fails, saying who removes it.
    func abort(_ upload: StreamingUpload, after error: any Error) throws {
        upload.stop()
        let (client, key, uploadID) = (client, destination.key, upload.uploadID)
        do {
            try BlockingBridge.run { try await client.abortUpload(key, uploadID: uploadID) }
        } catch let abortError {
            throw CommandFailure(
                "cannot write \(destination.url): \(error); aborting the upload failed too (\(abortError)): the next slice to this key removes it after a day"
            )
        }
    }
}
