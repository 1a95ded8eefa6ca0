import Glibc
import HTTPCore
import ImageCodecs
import NIOCore
import NIOPosix

/// Streams one upload's body into its job's staging file (`ROOT/.tiler-jobs/ID.upload`) on the file threads, never
/// holding more than about ``holdAt`` bytes of it in memory: while that much waits behind a write in flight, the
/// connection stops reading from the socket (``isHoldingReads``), and the kernel's window stops the client.
///
/// The first bytes are sniffed before anything is written (415 for what is not an image); a body over the limit
/// (sent chunked) is refused as it streams (413); a failed write is 507 (no space) or 500. Any failure or
/// ``abort(_:)`` fails the job and removes the file. Lives on the connection's event loop.
package final class UploadReceiver: RequestBodySink {
    /// Bytes waiting behind a write in flight from which reads from the socket are held back.
    package static let holdAt = 256 << 10
    /// Bytes sniffed before the first write.
    package static let sniffBytes = 12

    package let job: SliceJob
    package let queue: JobQueue
    package let limit: Int
    /// The head of the 202 answer (JSON, not stored).
    package let profile: ResponseProfile
    private let threadPool: NIOThreadPool
    private let loop: any EventLoop
    /// What the connection is told: reads may resume (`nil`), or the upload is refused with this error.
    private let notify: (RequestError?) -> Void
    private var descriptor: Int32 = -1
    private var pending = ByteBuffer()
    private var writing = false
    package private(set) var received = 0
    private var sniffed = false
    private var failed = false
    /// Called with the answer once the body ended and every byte is on disk.
    private var completion: ((Response) -> Void)?

    /// A receiver for `job`'s body; `notify` is called on the event loop.
    package init(
        job: SliceJob, queue: JobQueue, limit: Int, profile: ResponseProfile, threadPool: NIOThreadPool, loop: any EventLoop,
        notify: @escaping (RequestError?) -> Void
    ) {
        self.job = job
        self.profile = profile
        self.queue = queue
        self.limit = limit
        self.threadPool = threadPool
        self.loop = loop
        self.notify = notify
        pending = ByteBufferAllocator().buffer(capacity: 64 << 10)
    }

    /// Whether the connection should stop reading for now.
    package var isHoldingReads: Bool { writing && pending.readableBytes >= Self.holdAt }

    /// Takes body bytes: sniffs, checks the limit, writes. Returns the refusal to answer now, if any.
    package func receive(_ body: ByteBuffer) -> RequestError? {
        guard !failed else { return nil }
        received += body.readableBytes
        job.update { $0.bytesReceived = received }
        if received > limit {
            return refuse(RequestError(status: .contentTooLarge, message: "the upload is larger than --max-upload-mb (\(limit >> 20) MB)"))
        }
        var body = body
        pending.writeBuffer(&body)
        if !sniffed {
            guard pending.readableBytes >= Self.sniffBytes else { return nil }
            if let refusal = sniff() { return refusal }
        }
        startWriting()
        return nil
    }

    /// The body ended: once every byte is written, the file is closed and the job queued; `done` gets 202 with the
    /// job, or the refusal.
    package func finish(_ done: @escaping (Response) -> Void) {
        guard !failed else { return done(.error(RequestError(status: .badRequest, message: "the upload failed"))) }
        if !sniffed, let refusal = sniff() { return done(.error(refusal, extraHeaders: "", close: true)) }
        if let expected = job.snapshot.bytesExpected, expected != received {
            abort("the body ended after \(received) of \(expected) bytes")
            return done(.error(.badRequest("the body ended after \(received) of \(expected) bytes")))
        }
        completion = done
        if writing {
            return
        }
        if pending.readableBytes > 0 {
            startWriting()
        } else {
            complete()
        }
    }

    /// Ends the upload without storing anything (the client went away, or the body was malformed): the job fails with
    /// `message`, the file is removed.
    package func abort(_ message: String) {
        guard !failed else { return }
        failed = true
        job.fail(message)
        closeAndRemove()
    }

    // MARK: Steps

    private func sniff() -> RequestError? {
        sniffed = true
        let prefix = pending.getBytes(at: pending.readerIndex, length: min(pending.readableBytes, Self.sniffBytes)) ?? []
        guard ImageFormat.sniff(prefix) != nil else {
            return refuse(
                RequestError(status: .unsupportedMediaType, message: "the body is not an image tiler can slice (PNG, JPEG, TIFF or WebP)"))
        }
        return nil
    }

    private func refuse(_ error: RequestError) -> RequestError {
        abort("refused: \(error.message)")
        return error
    }

    /// Writes what is pending, opening the file first if needed: one write in flight at a time.
    private func startWriting() {
        guard !writing, !failed, pending.readableBytes > 0 else { return }
        writing = true
        let chunk = pending
        pending = ByteBufferAllocator().buffer(capacity: 64 << 10)
        let path = job.input
        let opened = descriptor
        let bound = NIOLoopBound(self, eventLoop: loop)
        threadPool.runIfActive(eventLoop: loop) { () throws -> Int32 in
            var descriptor = opened
            if descriptor < 0 {
                descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw IOFailure(code: errno, descriptor: -1) }
            }
            try chunk.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw IOFailure(code: errno, descriptor: descriptor)
                    }
                    offset += count
                }
            }
            return descriptor
        }.assumeIsolated().whenComplete { result in
            bound.value.written(result)
        }
    }

    private func written(_ result: Result<Int32, any Error>) {
        writing = false
        switch result {
        case .success(let opened):
            descriptor = opened
            if failed { return closeAndRemove() }
        case .failure(let error):
            if let failure = error as? IOFailure, failure.descriptor >= 0 { descriptor = failure.descriptor }
            let code = (error as? IOFailure)?.code ?? EIO
            let refusal =
                code == ENOSPC || code == EDQUOT || code == EFBIG
                ? RequestError(status: .insufficientStorage, message: "the server is out of disk space: the upload was not stored")
                : RequestError(status: .internalServerError, message: "the upload could not be written: \(String(cString: strerror(code)))")
            guard !failed else { return closeAndRemove() }
            abort("refused: \(refusal.message)")
            if let completion {
                self.completion = nil
                return completion(.error(refusal, extraHeaders: "", close: true))
            }
            return notify(refusal)
        }
        if pending.readableBytes > 0 {
            startWriting()
        } else if completion != nil {
            complete()
        }
        if !isHoldingReads { notify(nil) }
    }

    /// Every byte is written: close the file and hand the job to the queue.
    private func complete() {
        guard let completion else { return }
        self.completion = nil
        let descriptor = self.descriptor
        self.descriptor = -1
        let job = self.job
        let queue = self.queue
        let profile = self.profile
        threadPool.runIfActive(eventLoop: loop) {
            if descriptor >= 0 { close(descriptor) }
            queue.submit(job)
        }.assumeIsolated().whenComplete { _ in
            let body = ByteBuffer(string: job.json)
            completion(.body(status: .accepted, headerLines: profile.headerLines, extraHeaders: "Location: /api/jobs/\(job.id)\r\n", body: body))
        }
    }

    private func closeAndRemove() {
        guard !writing else { return }  // the write in flight comes back to `written`, which calls this again
        let descriptor = self.descriptor
        self.descriptor = -1
        let path = job.input
        let queue = self.queue
        let job = self.job
        threadPool.runIfActive(eventLoop: loop) {
            if descriptor >= 0 { close(descriptor) }
            unlink(path)
            queue.finished(job)
        }.whenComplete { _ in }
    }

    /// A failed `open` or `write`: its `errno`, and the descriptor if it was opened.
    package struct IOFailure: Error {
        package let code: Int32
        package let descriptor: Int32
    }
}
