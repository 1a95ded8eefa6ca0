import ArgumentParser
import Foundation
import ImageCodecs
import Slicing

/// One `tiler slice` run: opens the source, picks the tile encoder, shows progress and turns SIGINT/SIGTERM into
/// a clean cancellation (the builder removes its temporary folder; the destination is untouched).
struct SliceRequest {
    var input: String
    var output: String
    var name: String?
    var container: PyramidContainer = .folder
    /// The one file's extension as `-o` names it (`.tiff`, `.TIF`), nil for the container's own.
    var containerExtension: String? = nil
    var bigTIFF = false
    var tileSize: Int
    var overlap: Int
    var format: String
    var quality: Int
    var pngLevel: Int
    var optimizeHuffman: Bool
    var lossless = false
    var threads: Int
    var force: Bool
    /// Apply the EXIF orientation (the default) or slice the rows as stored.
    var autorotate: Bool
    var decodeOptions: DecodeOptions
    /// See ``Slicing/SliceOptions/onBodyWritten``: for a container sent on while it is built.
    var onBodyWritten: (@Sendable (_ path: String, _ through: UInt64) -> Void)? = nil
    /// Cancels the slice from elsewhere (an upload that failed), besides SIGINT and SIGTERM.
    var cancellation = SliceCancellation()
    /// Why the slice was cancelled when it was not a signal: thrown instead of the interrupt.
    var stopReason: (@Sendable () -> (any Error)?)? = nil

    /// Pyramid names become file names: no separators, no leading dot, nothing a shell or URL trips on. Letters and
    /// digits of any script (`café`, `東京`); `source` says where the name came from, for the message.
    static func validate(name: String, source: String = "--name") throws {
        let punctuation = Set("-_.+")
        guard !name.isEmpty, name.count <= 200, !name.hasPrefix("."),
            name.allSatisfy({ ($0.isLetter || $0.isNumber) && !$0.isWhitespace || punctuation.contains($0) })
        else {
            throw ValidationError(
                "\(source) names the pyramid '\(name)': a name must be 1–200 letters, digits, '-', '_', '.' or '+', not starting with '.'")
        }
    }

    /// The pyramid name: `name`, or the input's file name without its extension.
    func pyramidName() throws -> String {
        if let name { return name }
        let base = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let cleaned = String(base.map { Set("/\\ ?#%\"'<>").contains($0) ? "_" : $0 })
        let result = cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
        try Self.validate(name: result.isEmpty ? "image" : result, source: "the input's file name")
        return result.isEmpty ? "image" : result
    }

    /// Slices, blocking the calling thread, and returns the builder's summary and the source's header. First removes
    /// the staging folders killed slices left in the output folder, one line on standard error each. A failure
    /// leaves no trace: the builder removes its staging folder, and an output folder this run created is removed.
    func run(showProgress: Bool) throws -> (SliceSummary, ImageHeader) {
        let name = try pyramidName()
        let source = try ImageDecoder.open(path: input, options: decodeOptions)
        let header = source.header
        let orientation = autorotate ? header.orientation.flatMap(Orientation.init(exif:)) ?? .up : .up
        let displayed = orientation.displaySize(width: source.width, height: source.height)
        let tileFormat: TileFormat
        switch format {
        case "png": tileFormat = .png(compressionLevel: pngLevel)
        case "jpg", "jpeg": tileFormat = .jpeg(quality: quality, optimizeHuffman: optimizeHuffman)
        case "webp": tileFormat = .webp(quality: quality, lossless: lossless)
        default: tileFormat = .automatic(for: source.header.pixelFormat, quality: quality, pngLevel: pngLevel)
        }
        var options = tileFormat.sliceOptions()
        options.tileSize = tileSize
        options.overlap = overlap
        options.threads = threads
        options.force = force
        options.container = container
        options.containerExtension = containerExtension
        // Kept numbers are not sRGB's: the TIFF is left untagged, as the folder layout's tiles are.
        options.tagsSRGB = decodeOptions.colour != .keep
        options.bigTIFF = bigTIFF
        options.progressInterval = 0.1
        options.onBodyWritten = onBodyWritten
        // A slide's properties (its microns per pixel above all) stay with its pyramid; a later page is not the slide.
        if decodeOptions.page ?? 0 == 0 {
            options.recordSlide(at: input, width: source.width, height: source.height, bands: source.channels)
        }
        let created = try OutputFolder.create(output)
        for leftover in StagingSweep.removeLeftovers(in: output) { StandardError.print("tiler: \(leftover)") }
        do {
            let summary = try slice(source, orientation: orientation, total: displayed, name: name, options: options, showProgress: showProgress)
            return (summary, header)
        } catch {
            created.removeIfCreated()
            throw error
        }
    }

    private func slice(
        _ source: any ImageRowReader, orientation: Orientation, total: (width: Int, height: Int), name: String, options: SliceOptions,
        showProgress: Bool
    ) throws -> SliceSummary {
        let builder = PyramidBuilder(options: options, cancellation: cancellation)
        let meter = showProgress ? ProgressLine(label: "slice \(name)", total: total.height, unit: "rows") : nil
        defer { meter?.finish() }
        let slice = { (_: () -> Bool) throws -> SliceSummary in
            do {
                return try builder.slice(source, orientation: orientation, into: output, name: name) { progress in
                    meter?.update(progress.rowsRead, pixels: progress.rowsRead * total.width, extra: "\(progress.tilesWritten) tiles")
                }
            } catch let error as SliceError where error.reason == .cancelled {
                throw stopReason?() ?? CancellationError()
            }
        }
        return try SignalHub.shared.whileCancellable(onSignal: { builder.cancel() }, slice)
    }
}
