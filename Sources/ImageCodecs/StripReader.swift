/// The `ImageRowReader` for every format: clamps requests to the image, counts rows, converts colours when a
/// ``ColourTransform`` is given, and turns a shim failure into a `CodecError` naming the file and the row reached.
final class StripReader<Source: StripDecoder>: ImageRowReader {
    let header: ImageHeader
    private(set) var rowsRead = 0
    private let source: Source
    private let path: String
    /// With a transform: conversion on another thread, one batch behind the decoder.
    private let pipeline: ConversionPipeline?
    private let rawStride: Int
    /// Rows the source has delivered (ahead of `rowsRead` while a batch is converted).
    private var rowsDecoded = 0
    /// A decoder failure met while reading ahead: thrown once the rows before it are delivered.
    private var decodeFailure: CodecError?
    /// The first failure; every later call throws it again, even one that asks for no rows.
    private var failure: CodecError?

    /// Rows per converted batch: small enough to stay in cache between decoding and converting.
    static var batchBytes: Int { 512 << 10 }

    init(source: Source, header: ImageHeader, path: String, transform: ColourTransform? = nil) {
        self.source = source
        self.header = header
        self.path = path
        if let transform {
            precondition(transform.outputChannels == header.channels, "transform output must match the header")
            rawStride = header.width * transform.input.bytesPerPixel
            pipeline = ConversionPipeline(
                transform: transform, pixels: header.width, rawStride: rawStride,
                outStride: header.width * header.channels, batchRows: max(1, min(header.height, Self.batchBytes / rawStride)))
        } else {
            rawStride = header.width * header.channels
            pipeline = nil
        }
    }

    /// The source's band when rows reach the caller unconverted; with a colour transform rows go through the
    /// pipeline's batches, so no count is better than another.
    var preferredBatchRows: Int {
        pipeline == nil && failure == nil ? source.directRows(stride: rawStride) : 0
    }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        precondition(rowCount >= 0, "rowCount must not be negative")
        if let failure { throw failure }
        let count = min(rowCount, header.height - rowsRead)
        guard count > 0 else { return 0 }
        guard let pipeline else {
            let done = decode(into: buffer, rows: count)
            rowsRead += done
            if let decodeFailure {
                failure = decodeFailure
                throw decodeFailure
            }
            return done
        }
        var delivered = 0
        let outStride = header.width * header.channels
        while delivered < count {
            if pipeline.readyRows == 0 { try refill(pipeline) }
            delivered += pipeline.take(into: buffer + delivered * outStride, rows: count - delivered)
        }
        rowsRead += delivered
        return delivered
    }

    /// Makes converted rows ready: starts a batch if none is being converted, decodes the next one while it
    /// converts, then waits for it. Throws a decoder failure once every row before it has been delivered.
    private func refill(_ pipeline: ConversionPipeline) throws(CodecError) {
        if !pipeline.isConverting {
            let rows = decodeAhead(pipeline)
            guard rows > 0 else {
                let error =
                    decodeFailure
                    ?? CodecError(kind: .truncated, path: path, message: "image data ends early", row: rowsDecoded, height: header.height)
                failure = error
                throw error
            }
            pipeline.startConverting(rows: rows)
        }
        let next = decodeAhead(pipeline)
        pipeline.finish()
        if next > 0 { pipeline.startConverting(rows: next) }
    }

    /// Decodes the next batch into the pipeline's free buffer; returns its rows (0 at the end or after a failure).
    private func decodeAhead(_ pipeline: ConversionPipeline) -> Int {
        guard decodeFailure == nil else { return 0 }
        let rows = min(pipeline.batchRows, header.height - rowsDecoded)
        guard rows > 0 else { return 0 }
        return decode(into: pipeline.freeRaw, rows: rows)
    }

    /// Reads `rows` stored rows into `buffer`; a shim failure is kept in `decodeFailure` (the rows before it count).
    private func decode(into buffer: UnsafeMutablePointer<UInt8>, rows: Int) -> Int {
        var done: UInt32 = 0
        let status = source.read(into: buffer, stride: rawStride, count: UInt32(rows), done: &done)
        rowsDecoded += Int(done)
        if status != 0 {
            decodeFailure = CodecError(
                kind: CodecError.kind(forShimStatus: status), path: path, message: source.message,
                row: source.errorRow, height: header.height)
        }
        return Int(done)
    }
}
