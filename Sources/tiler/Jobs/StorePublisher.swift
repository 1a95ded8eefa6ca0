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

    /// Sends `file` to the key; gives its size. SIGINT and SIGTERM abort the upload.
    ///
    /// - Throws: `CommandFailure` naming the destination and the store's answer; `ExitCode(130)` after an interrupt.
    func publish(_ file: String) throws -> Int {
        let client = client
        let key = destination.key
        let contentType = destination.container == .szi ? "application/zip" : "image/tiff"
        let caught = Locked<Int32?>(nil)
        let outcome = Locked<Result<Int, any Error>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let task = Task { [file, key, contentType, client] in
            let result: Result<Int, any Error>
            do {
                result = .success(try await StorePublisher.upload(file, to: key, contentType: contentType, client: client))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        SignalHub.shared.setHandler { number in
            caught.withLock { $0 = $0 ?? number }
            task.cancel()
        }
        finished.wait()
        SignalHub.shared.clear()
        if let number = caught.withLock({ $0 }) {
            StandardError.print("\ntiler: interrupted by \(SignalHub.name(number)); nothing was written to \(destination.url)")
            throw ExitCode(130)
        }
        do {
            return try outcome.withLock { $0! }.get()
        } catch {
            throw CommandFailure("cannot write \(destination.url): \(error)")
        }
    }

    /// The multipart upload of `file`: parts read from the file as they are sent, ``partsInFlight`` at a time; aborted
    /// on any failure or cancellation.
    private static func upload(_ file: String, to key: String, contentType: String, client: S3Client) async throws -> Int {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandFailure("cannot read the staged \(file): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw CommandFailure("cannot read the staged \(file): \(String(cString: strerror(errno)))") }
        let size = Int(status.st_size)
        let partSize = max(Self.partSize, (size + 9_999) / 10_000)
        let count = max(1, (size + partSize - 1) / partSize)
        try Task.checkCancellation()
        let uploadID = try await client.createUpload(key, contentType: contentType)
        do {
            let parts = try await withThrowingTaskGroup(of: S3CompletedPart.self) { group in
                var next = 1
                var parts: [S3CompletedPart] = []
                func send(_ number: Int) {
                    let offset = (number - 1) * partSize
                    let length = min(partSize, size - offset)
                    group.addTask {
                        try Task.checkCancellation()
                        let body = try Self.readPart(descriptor, offset: offset, length: length)
                        return try await client.uploadPart(key, uploadID: uploadID, partNumber: number, body: body)
                    }
                }
                while next <= min(Self.partsInFlight, count) {
                    send(next)
                    next += 1
                }
                while let part = try await group.next() {
                    parts.append(part)
                    try Task.checkCancellation()
                    if next <= count {
                        send(next)
                        next += 1
                    }
                }
                return parts
            }
            try Task.checkCancellation()
            try await client.completeUpload(key, uploadID: uploadID, parts: parts)
        } catch {
            do {
                try await client.abortUpload(key, uploadID: uploadID)
            } catch let abortError {
                throw UploadFailure(
                    description: "\(error); aborting the upload failed too (\(abortError)): the next slice to this key removes it after a day")
            }
            throw error
        }
        return size
    }

    /// `length` bytes of the file at `offset`.
    private static func readPart(_ descriptor: Int32, offset: Int, length: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        var done = 0
        while done < length {
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length - done) { bytes in
                let count = pread(descriptor, bytes.baseAddress, length - done, off_t(offset + done))
                return max(count, 0)
            }
            guard read > 0 else { throw CommandFailure("cannot read the staged file: it ended at \(offset + done) bytes") }
            done += read
        }
        return buffer
    }

    /// An upload that failed and could not be aborted either.
    private struct UploadFailure: Error, CustomStringConvertible {
        let description: String
    }
}
