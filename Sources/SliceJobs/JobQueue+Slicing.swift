import CFileIO
import Foundation
import ImageCodecs
import Slicing
import TileGeometry

extension JobQueue {
    /// Slices `job` on this (low-priority) thread: a pyramidal TIFF is moved into place as it is; any other image is
    /// sliced by ``PyramidBuilder`` (which builds in a hidden staging folder, publishes atomically — replacing the old
    /// pyramid only then, with `replace` — and removes everything on failure or cancellation). Then the catalog is
    /// rescanned, the job ends, and its staged body is removed.
    package func run(_ job: SliceJob) {
        guard job.update({ $0.state = .slicing }) else { return cleanUp(job) }
        perform(job) { directory, stem in try slice(job, into: directory, stem: stem) }
    }

    /// Takes a complete job (its file whole; blocking, on a file or worker thread): a pyramidal TIFF is put in place
    /// at once (`receiving` → `done`, no slicing); anything else is queued for a slicing thread.
    package func submit(_ job: SliceJob) {
        guard (try? TIFFPyramid(path: job.input)) != nil else { return enqueue(job) }
        perform(job) { directory, stem in try placeTIFF(job, at: directory + "/" + stem + ".tif") }
    }

    /// Runs `work` with the job's destination folder (created) and file stem, then publishes (rescans) and ends the
    /// job: done with its final descriptor URL, cancelled, or failed with one line.
    private func perform(_ job: SliceJob, _ work: (String, String) throws -> Void) {
        let (folder, stem) = ImageName.split(job.name)
        let directory = folder.isEmpty ? root : root + "/" + folder
        // Folders made for the pyramid are the job's to remove again if it does not finish (its record says which).
        let createdFolder = JobRecord.firstMissing(of: folder, root: root)
        if createdFolder != nil {
            var record = JobRecord(job)
            record.createdFolder = createdFolder
            record.save(root: root)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try work(directory, stem)
            _ = provisionals.withLock { $0.removeValue(forKey: job.name) }
            onPublished()
            let dzi = catalog.current.images[job.name[...]].map { $0.versionedPrefix + ".dzi" }
            job.update {
                $0.state = .done
                $0.dzi = dzi
                $0.tilesWritten = $0.tiles
                $0.rowsDecoded = $0.rows
            }
        } catch let error as SliceError where error.reason == .cancelled {
            abandon(job, createdFolder: createdFolder)
            job.update {
                $0.state = .cancelled
                $0.dzi = nil
            }
        } catch {
            abandon(job, createdFolder: createdFolder)
            job.fail(describe(error, of: job))
        }
        try? FileManager.default.removeItem(atPath: Self.coarseFolder(root: root, job: job))
        switch job.source {
        case .upload: unlink(job.input)
        case .inbox: Inbox.settle(job)
        }
        finished(job)
    }

    /// What a job that does not finish leaves undone: its provisional pyramid is withdrawn, and the folders it made
    /// for its pyramid are removed while empty.
    private func abandon(_ job: SliceJob, createdFolder: String?) {
        _ = provisionals.withLock { $0.removeValue(forKey: job.name) }
        JobRecord.removeEmptyFolders(of: job.name, upTo: createdFolder, root: root)
    }

    /// Slices the job's file into `directory/stem.dzi` + `stem_files/`, reporting progress on the job.
    private func slice(_ job: SliceJob, into directory: String, stem: String) throws {
        let source = try ImageDecoder.open(path: job.input)
        let header = source.header
        let orientation = header.orientation.flatMap(Orientation.init(exif:)) ?? .up
        let displayed = orientation.displaySize(width: source.width, height: source.height)
        var options = TileFormat.automatic(for: header.pixelFormat).sliceOptions()
        options.force = job.replace
        options.progressInterval = 0.1
        options.threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        options.recordSlide(at: job.input, width: source.width, height: source.height, bands: source.channels)
        let geometry = DZIDescriptor(
            width: displayed.width, height: displayed.height, tileSize: options.tileSize, overlap: options.overlap, format: options.fileExtension)
        let pyramid = Pyramid(width: displayed.width, height: displayed.height, tileSize: options.tileSize, overlap: options.overlap)
        let register = { @Sendable [self] (filesPath: String) in
            let (provisional, first) = provisionals.withLock { provisionals in
                let earlier = provisionals[job.name]
                var provisional =
                    earlier
                    ?? ProvisionalPyramid(job: job, version: ProvisionalPyramid.newVersion(), filesPaths: [], descriptor: geometry, pyramid: pyramid)
                provisional.filesPaths.insert(filesPath, at: 0)
                provisionals[job.name] = provisional
                return (provisional, earlier == nil)
            }
            job.update {
                $0.dzi = provisional.dzi
                $0.tiles = PyramidBuilder.tileCount(of: pyramid)
            }
            if first { onViewable?(job.id) }
        }
        job.update { $0.rows = displayed.height }
        let full = { @Sendable (source: any ImageRowReader, options: SliceOptions, cancellation: SliceCancellation) throws in
            let builder = PyramidBuilder(options: options, cancellation: cancellation)
            _ = try builder.slice(source, orientation: orientation, into: directory, name: stem) { progress in
                job.update {
                    $0.rowsDecoded = progress.rowsRead
                    $0.rows = progress.totalRows
                    $0.tilesWritten = progress.tilesWritten
                    $0.tiles = progress.totalTiles
                }
            }
        }
        let longest = max(displayed.width, displayed.height)
        guard header.format == .jpeg, longest > Self.coarseSide else {
            options.onStaging = register
            return try full(source, options, job.cancellation)
        }
        // The coarse view is shown first; the full build's first rows would add nothing to it.
        let staged = CoarseFirst(register: register)
        options.onStaging = { staged.full($0) }
        // The coarse build stops when the job is cancelled, and when the full build fails (which has the verdict).
        let coarseCancellation = SliceCancellation(parent: job.cancellation)
        let fullBuild = JobThread(name: "tiler-slice-full") { [options] in
            // Below the coarse build (nice 15 to its 10), so the coarse view comes about as soon as it would alone while
            // the full build takes what the coarse one leaves of the cores, and all of them afterwards.
            _ = tiler_nice_this_thread(15)
            do {
                try full(try ImageDecoder.open(path: job.input), options, job.cancellation)
            } catch {
                coarseCancellation.cancel()
                throw error
            }
        }
        do {
            staged.coarse(
                try sliceCoarse(job, stem: stem, options: options, orientation: orientation, longest: longest, cancellation: coarseCancellation))
        } catch let error as SliceError where error.reason == .cancelled {
            try fullBuild.wait()
            throw error
        } catch {
            // A coarse build that fails (a file damaged near its end) leaves the verdict to the full one.
            logger.warning("\(job.name): no coarse view (\(describe(error, of: job))); the full build goes on")
            staged.coarseFailed()
        }
        try fullBuild.wait()
    }

    /// The longest side of a JPEG's coarse pyramid, about: its finest level is the first at most this wide.
    package static let coarseSide = 4096

    /// A JPEG's coarse pyramid, made before the full one so that the image can be seen in seconds: the file decoded
    /// at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling skips most of the work) and sliced into
    /// `ROOT/.tiler-jobs/ID-coarse/`. Its levels are the final pyramid's levels of the same numbers (a level of
    /// ceil(W/8) × ceil(H/8) pixels is the final level three below the top), so its tiles stand in for the final
    /// ones until those are written. Returns its tile folder.
    private func sliceCoarse(
        _ job: SliceJob, stem: String, options: SliceOptions, orientation: Orientation, longest: Int, cancellation: SliceCancellation
    ) throws -> String {
        var scale = 2
        while scale < 8 && (longest + scale - 1) / scale > Self.coarseSide { scale *= 2 }
        var decoding = DecodeOptions()
        decoding.jpegScale = scale
        let source = try ImageDecoder.open(path: job.input, options: decoding)
        let folder = Self.coarseFolder(root: root, job: job)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var coarse = options
        coarse.force = true
        coarse.onStaging = nil
        _ = try PyramidBuilder(options: coarse, cancellation: cancellation).slice(source, orientation: orientation, into: folder, name: stem)
        return "\(folder)/\(stem)_files"
    }

    /// Where a job's coarse pyramid is built (removed when the job ends, and at the next start).
    package static func coarseFolder(root: String, job: SliceJob) -> String {
        JobRecord.folder(root: root) + "/\(job.id)-coarse"
    }

    /// Moves a pyramidal TIFF into place (served in place, no slicing): `rename`, which replaces atomically, with
    /// `replace`; else `link` + `unlink`, which never replaces.
    private func placeTIFF(_ job: SliceJob, at destination: String) throws {
        if job.replace {
            guard rename(job.input, destination) == 0 else {
                throw SliceError(.destination, "cannot move the TIFF into place: \(String(cString: strerror(errno)))")
            }
            return
        }
        guard link(job.input, destination) == 0 else {
            let code = errno
            if code == EEXIST { throw SliceError(.destinationExists, "\(job.name).tif appeared meanwhile; nothing was replaced") }
            throw SliceError(.destination, "cannot move the TIFF into place: \(String(cString: strerror(code)))")
        }
        unlink(job.input)
    }

    /// One line for a failed job, naming the image instead of the staging file's path.
    private func describe(_ error: any Error, of job: SliceJob) -> String {
        let text = (error as? SliceError)?.message ?? String(describing: error)
        return text.replacingOccurrences(of: job.input, with: job.name).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
