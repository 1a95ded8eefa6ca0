import ImageCodecs
import TileGeometry

extension PyramidBuilder {
    /// What ``build(_:pyramid:in:meter:)`` wrote.
    struct BuildOutcome {
        let tiles: Int
        let bytes: Int
        let peakBufferBytes: Int
        /// The one file's size in bytes, for an SZI or a TIFF.
        var fileBytes: Int?
        /// The levels a TIFF stores (down to one tile), when fewer than the pyramid's.
        var storedLevels: Int?
    }

    /// Builds the whole pyramid inside `staging`: starts the workers, streams the source through the levels, waits
    /// for the last tile, and writes the `.dzi`.
    func build(_ source: any RowSource, pyramid: Pyramid, in staging: StagingFolder, meter: inout ProgressMeter) throws(SliceError)
        -> BuildOutcome
    {
        var folder: TileWriter?
        var archive: ArchiveTileWriter?
        var tiff: TIFFTileWriter?
        let writer: any TileSink
        var makeEncoder = options.makeEncoder
        switch options.container {
        case .folder:
            folder = try TileWriter(filesPath: staging.filesPath, levels: pyramid.levelCount, fileExtension: options.fileExtension)
            writer = folder!
        case .szi:
            var onWritten: (@Sendable (UInt64) -> Void)?
            if let bodyWritten = options.onBodyWritten {
                let path = staging.archivePath
                onWritten = { through in bodyWritten(path, through) }
            }
            archive = try ArchiveTileWriter(
                path: staging.archivePath, name: staging.name, fileExtension: options.fileExtension, zip64Threshold: options.zip64Threshold,
                onWritten: onWritten)
            writer = archive!
        case .tiff:
            // validate() let only the formats a TIFF holds through.
            let compression = TIFFTileCompression(fileExtension: options.fileExtension)!
            tiff = try TIFFTileWriter(
                folder: staging.path, pyramid: pyramid, channels: source.channels, compression: compression,
                inPlaceMinimumBytes: options.tiffInPlaceMinimumBytes, iccProfile: options.tagsSRGB ? SRGBProfile.bytes : [],
                micronsPerPixel: options.properties?.micronsPerPixel, description: options.properties?.vipsXML(),
                associated: options.associatedImages, onBodyWritten: options.onBodyWritten)
            writer = tiff!
            if compression == .deflate {
                // A TIFF's lossless tiles are bare predicted Deflate streams, not PNG files.
                let level = options.compressionLevel
                makeEncoder = { DeflateTileEncoder(level: level) }
            }
        }
        defer { folder?.closeFolders() }
        let strips = StripPool(perLevel: 1, exceptions: Self.stripCounts(pyramid))
        let workers = TileWorkerPool(
            pyramid: pyramid, channels: source.channels, threads: options.threads, makeEncoder: makeEncoder,
            writer: writer, strips: strips, cancellation: cancellation, padsEdgeTiles: tiff != nil)
        strips.observeWaits { [weak workers] waiting in workers?.decoderWaits(waiting) }
        workers.start()
        // A TIFF stores the levels down to the first of one tile, not the smaller ones: progress counts what it stores,
        // as the summary does.
        let totalTiles = tiff.map { Self.tileCount(of: pyramid, from: $0.smallestLevel) } ?? Self.tileCount(of: pyramid)
        var rowsRead = 0
        let snapshot = { (elapsed: Double) in
            let written = tiff?.written ?? workers.written
            return SliceProgress(
                rowsRead: rowsRead, totalRows: pyramid.height, tilesWritten: written.tiles, totalTiles: totalTiles,
                bytesWritten: written.bytes, elapsedSeconds: elapsed)
        }
        var readError: SliceError?
        do throws(SliceError) {
            let top = Self.makeLevels(pyramid, channels: source.channels, strips: strips, workers: workers)
            try stream(source, into: top, workers: workers) { rows in
                rowsRead = rows
                meter.tick(snapshot)
            }
        } catch {
            readError = error
            workers.fail(error)
        }
        workers.finish(tickEvery: options.progressInterval) { meter.tick(snapshot) }
        if let failure = readError ?? workers.firstFailure { throw failure }
        if cancellation.isCancelled { throw SliceError.cancelledError }
        let descriptor = DZIDescriptor(
            width: pyramid.width, height: pyramid.height, tileSize: pyramid.tileSize, overlap: pyramid.overlap, format: options.fileExtension)
        var fileBytes: Int?
        var written = workers.written
        if let archive {
            fileBytes = Int(try archive.finish(descriptor: descriptor.xml, properties: options.properties, associated: options.associatedImages))
        } else if let tiff {
            fileBytes = Int(try tiff.finish(into: staging.archivePath, bigTIFF: options.bigTIFF))
            written = tiff.written
        } else {
            if let properties = options.properties { try staging.writeProperties(properties) }
            if !options.associatedImages.isEmpty { try staging.writeAssociated(options.associatedImages) }
            try staging.writeDescriptor(descriptor)
        }
        meter.tick(force: true, snapshot)
        return BuildOutcome(
            tiles: written.tiles, bytes: written.bytes, peakBufferBytes: strips.peakBytes, fileBytes: fileBytes,
            storedLevels: tiff.map { pyramid.maxLevel - $0.smallestLevel + 1 })
    }

    /// Reads every source row into the top level, checking for cancellation and worker failures between reads.
    private func stream(_ source: any RowSource, into top: LevelStrip, workers: TileWorkerPool, read: (Int) -> Void) throws(SliceError) {
        // Small batches keep the rows in cache between the decoder writing them and the shrink reading them, unless
        // the decoder can put a whole band of its own straight into the strip (a TIFF's row of tiles): that saves a
        // copy of every row and the decoder's band buffer.
        let batch = max(1, min(64, (512 << 10) / top.rowBytes), source.preferredBatchRows)
        while top.rowsReceived < top.height {
            if cancellation.isCancelled { throw SliceError.cancelledError }
            if let failure = workers.firstFailure { throw failure }
            let target = top.writableRows(limit: batch)
            let row = top.rowsReceived
            let count: Int
            do {
                count = try source.readRows(into: target.start, rowCount: target.count)
            } catch {
                if cancellation.isCancelled { throw SliceError.cancelledError }
                throw SliceError(.source, Self.sourceFailure(error, row: row, height: top.height))
            }
            guard count >= 1 && count <= target.count else {
                let what = count == 0 ? "ended early" : "returned \(count) rows when asked for \(target.count)"
                throw SliceError(.source, "source \(what) at row \(row) of \(top.height)")
            }
            top.commitRows(count)
            read(top.rowsReceived)
        }
    }

    /// One line for a source failure, naming the row once: a decoder's error that already says where it broke
    /// (a ``CodecError`` with its row, or a turned image's stored row) is passed on as it is.
    static func sourceFailure(_ error: any Error, row: Int, height: Int) -> String {
        let text = SliceError.oneLine(error)
        if let codec = error as? CodecError, codec.row != nil { return "source failed: \(text)" }
        if error is SpoolFile.Failure { return "source failed: \(text)" }
        return "source failed at row \(row) of \(height): \(text)"
    }

    /// Links the levels from 1×1 up to full size and returns the full-size one.
    private static func makeLevels(_ pyramid: Pyramid, channels: Int, strips: StripPool, workers: TileWorkerPool) -> LevelStrip {
        var level: LevelStrip?
        for index in 0...pyramid.maxLevel {
            level = LevelStrip(pyramid: pyramid, level: index, channels: channels, below: level, strips: strips, workers: workers)
        }
        return level!
    }
}
