import CFileIO
import Dispatch
import Foundation
import NIOCore
import ObjectStore

/// A multipart upload fed while the slice writes its container (``Slicing/SliceOptions/onBodyWritten``): each part of
/// the body is sent as soon as the bytes it covers are final, ``StorePublisher/partsInFlight`` at a time, read from the
/// staging file on a queue of its own — memory stays under that many parts — and its disk blocks freed once the store
/// has it. What cannot go before the slice ends is sent by ``finish(front:)``: the body's last part and, for a
/// TIFF, the front (header, directories, smaller levels, written last) with the body's first ``holdBack`` bytes, held
/// back so that the front's parts are large enough. A failure stops the upload, cancels the slice (`onFailure`) and is
/// given by ``finish(front:)``; the caller aborts the upload.
///
/// State lives on `queue` alone (hence `@unchecked Sendable`).
final class StreamingUpload: @unchecked Sendable {
    /// Part numbers below this are the front's (a TIFF's), from 1; the body's follow from it.
    let firstBodyPart: Int
    /// Body bytes sent with the front, not streamed.
    let holdBack: UInt64
    let uploadID: String
    private let client: S3Client
    private let key: String
    private let partSize: Int
    private let onFailure: @Sendable () -> Void
    private let queue = DispatchQueue(label: "tiler.streaming-upload")
    private let settled = DispatchSemaphore(value: 0)
    /// Entered for each request to the store in flight.
    private let requests = DispatchGroup()

    private var body: Int32 = -1
    private var through: UInt64 = 0
    private var sent: UInt64
    private var nextPart: Int
    /// Parts waiting for a slot: the front's, once known.
    private var waiting: [(number: Int, pieces: [(fd: Int32, offset: UInt64, count: Int)])] = []
    private var inFlight = 0
    private var parts: [S3CompletedPart] = []
    private var firstFailure: (any Error)?
    private var bodySize: UInt64?
    private var front: Int32 = -1
    private var outcome: Result<Void, any Error>?

    /// An upload `uploadID` to `key` already created; `tiff`: the body is a TIFF's finest level, after a front.
    init(client: S3Client, key: String, uploadID: String, tiff: Bool, partSize: Int, onFailure: @escaping @Sendable () -> Void) {
        self.client = client
        self.key = key
        self.uploadID = uploadID
        self.partSize = partSize
        self.onFailure = onFailure
        firstBodyPart = tiff ? 1001 : 1
        holdBack = tiff ? UInt64(partSize) : 0
        sent = holdBack
        nextPart = firstBodyPart
    }

    deinit {
        if body >= 0 { close(body) }
        if front >= 0 { close(front) }
    }

    /// The body file at `path` holds its final bytes before `through`. Thread-safe; returns at once.
    func bodyWritten(path: String, through: UInt64) {
        queue.async { [self] in
            if body < 0 { body = open(path, O_RDWR | O_CLOEXEC) }
            guard body >= 0 else { return fail(UploadError("cannot read the staged \(path): \(String(cString: strerror(errno)))")) }
            self.through = max(self.through, through)
            pump()
        }
    }

    /// Sends the rest once the slice is done — the body, whose whole size the writer's last call to
    /// ``bodyWritten(path:through:)`` gave, after `front`, the file holding a TIFF's front — and completes the upload.
    /// Blocks until then.
    ///
    /// - Throws: The first failure: a part the store refused, a staging file that could not be read.
    func finish(front frontPath: String?) throws {
        queue.async { [self] in
            // The writer's last report, queued before this, is the body's end.
            bodySize = through
            if let frontPath { queueFront(frontPath) }
            pump()
        }
        settled.wait()
        try queue.sync { outcome! }.get()
    }

    /// The body's bytes handed to the store in parts so far (a TIFF's held-back start not counted). Thread-safe.
    var bodyBytesSent: UInt64 { queue.sync { sent > holdBack ? sent - holdBack : 0 } }

    /// The first failure so far, if any. Thread-safe.
    var failure: (any Error)? { queue.sync { firstFailure } }

    /// Stops sending (an interrupt): ``finish(front:)`` then fails once the parts in flight are done.
    func cancel() {
        queue.async { [self] in fail(CancellationError()) }
    }

    /// Stops sending and waits for the requests in flight, at most `patience` (a part the store never answers must not
    /// hold an interrupt up), so that none lands after the upload is aborted.
    func stop(patience: DispatchTimeInterval = .seconds(2)) {
        queue.sync { fail(CancellationError()) }
        _ = requests.wait(timeout: .now() + patience)
    }

    /// The bytes of part `number`'s size for a body part: grows every 1,500 parts, so that the 9,000 a body may have
    /// hold 1.5 TB at 16 MiB.
    private func bodyPartSize(_ number: Int) -> UInt64 { UInt64(partSize) << min(6, (number - firstBodyPart) / 1_500) }

    /// A TIFF's front and the body's held-back start, as parts of at least ``partSize`` (unless it is all there is).
    private func queueFront(_ path: String) {
        front = open(path, O_RDONLY | O_CLOEXEC)
        var info = stat()
        guard front >= 0, fstat(front, &info) == 0 else {
            return fail(UploadError("cannot read the staged \(path): \(String(cString: strerror(errno)))"))
        }
        let frontSize = UInt64(info.st_size)
        let total = frontSize + min(holdBack, bodySize ?? 0)
        let count = UInt64(max(1, min(firstBodyPart - 1, Int(total / UInt64(partSize)))))
        var start: UInt64 = 0
        for index in 0..<count {
            let end = total * (index + 1) / count
            var pieces: [(fd: Int32, offset: UInt64, count: Int)] = []
            if start < frontSize { pieces.append((front, start, Int(min(end, frontSize) - start))) }
            if end > frontSize { pieces.append((body, max(start, frontSize) - frontSize, Int(end - max(start, frontSize)))) }
            waiting.append((Int(index) + 1, pieces))
            start = end
        }
    }

    /// Sends what may go, up to the parts in flight; completes once everything is sent.
    private func pump() {
        while firstFailure == nil && inFlight < StorePublisher.partsInFlight {
            if !waiting.isEmpty {
                let next = waiting.removeFirst()
                send(next.number, next.pieces, freeing: nil)
                continue
            }
            let size = bodyPartSize(nextPart)
            let end = bodySize.map { min(sent + size, $0) } ?? sent + size
            guard end > sent, end <= through else { break }
            guard nextPart <= 10_000 else { return fail(UploadError("the file is too large for a multipart upload's 10,000 parts")) }
            send(nextPart, [(body, sent, Int(end - sent))], freeing: (sent, end - sent))
            nextPart += 1
            sent = end
        }
        guard inFlight == 0, outcome == nil else { return }
        if let firstFailure { return settle(.failure(firstFailure)) }
        guard let bodySize, sent >= bodySize, waiting.isEmpty else { return }
        complete()
    }

    /// Reads and sends part `number`; `freeing`: the body's bytes it holds, whose blocks are freed once sent.
    private func send(_ number: Int, _ pieces: [(fd: Int32, offset: UInt64, count: Int)], freeing: (offset: UInt64, count: UInt64)?) {
        let bytes: ByteBuffer
        do {
            bytes = try Self.read(pieces)
        } catch {
            return fail(error)
        }
        inFlight += 1
        requests.enter()
        let body = self.body
        client.uploadPart(key, uploadID: uploadID, partNumber: number, body: bytes, on: client.eventLoopGroup.any()).whenComplete { result in
            self.queue.async {
                self.inFlight -= 1
                switch result {
                case .success(let part):
                    self.parts.append(part)
                    if let freeing { _ = tiler_punch_hole(body, off_t(freeing.offset), off_t(freeing.count)) }
                case .failure(let error):
                    self.fail(error)
                }
                self.pump()
                self.requests.leave()
            }
        }
    }

    private func complete() {
        let parts = self.parts.sorted { $0.partNumber < $1.partNumber }
        outcome = .success(())  // claimed: pump no longer completes
        requests.enter()
        client.completeUpload(key, uploadID: uploadID, parts: parts, on: client.eventLoopGroup.any()).whenComplete { result in
            self.queue.async {
                self.settle(result.map { _ in })
                self.requests.leave()
            }
        }
    }

    private func settle(_ result: Result<Void, any Error>) {
        outcome = result
        settled.signal()
    }

    /// Stops the upload at its first failure and cancels the slice. An interrupt is settled at once; any other failure
    /// once the requests in flight are done.
    private func fail(_ error: any Error) {
        guard firstFailure == nil else { return }
        firstFailure = error
        onFailure()
        if error is CancellationError, outcome == nil { return settle(.failure(error)) }
        pump()
    }

    /// The bytes of `pieces`, one after another.
    private static func read(_ pieces: [(fd: Int32, offset: UInt64, count: Int)]) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: pieces.reduce(0) { $0 + $1.count })
        for piece in pieces {
            var done = 0
            while done < piece.count {
                let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: piece.count - done) { bytes in
                    max(pread(piece.fd, bytes.baseAddress, piece.count - done, off_t(piece.offset) + off_t(done)), 0)
                }
                guard read > 0 else { throw UploadError("cannot read the staged file: it ended at \(Int(piece.offset) + done) bytes") }
                done += read
            }
        }
        return buffer
    }

    /// A failure of the upload's own, in one line.
    struct UploadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
