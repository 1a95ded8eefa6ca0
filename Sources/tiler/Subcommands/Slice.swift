import ArgumentParser
import Foundation
import ImageCodecs
import Slicing
import TileGeometry

/// `tiler slice`: streams a PNG, JPEG or TIFF into a Deep Zoom pyramid (`NAME.dzi` + `NAME_files/`, or one `NAME.szi`).
struct Slice: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Slice a huge PNG, JPEG or TIFF into a Deep Zoom tile pyramid, streaming, on every core.",
        discussion: """
            Writes DIR/NAME.dzi and DIR/NAME_files/LEVEL/COL_ROW.EXT, or with --container szi (or -o DIR/NAME.szi) one \
            file DIR/NAME.szi: a stored ZIP of the same files under NAME/, as vips dzsave --container zip writes; with \
            --container tiff (or -o DIR/NAME.tif) one tiled pyramidal TIFF with JPEG tiles (WebP with --format webp; \
            lossless Deflate with --format png, the choice for images with alpha), laid out as COG's \
            (BigTIFF past 4 GiB or with --bigtiff), which tiler serve serves in place. The pyramid is built in a hidden folder beside \
            the destination and moved into place only when complete: on any error or interruption nothing is left \
            behind, and an existing pyramid is replaced (with --force) only once the new one is whole. Hidden folders \
            that killed slices left in the output folder are removed first (those of running slices and of other \
            hosts are kept), one line on standard error each. With -o s3://BUCKET/PREFIX/NAME.szi (or .tif) the file is \
            sliced in the temporary folder and published with a multipart upload, keys and endpoint from the AWS \
            variables: the object appears only once whole, the bucket is checked before slicing.
            """
    )

    @Argument(help: "The PNG, JPEG, TIFF or BigTIFF to slice (recognised by its content).")
    var input: String

    @Option(
        name: .shortAndLong,
        help: "The folder to write into (created if missing), DIR/NAME.szi or DIR/NAME.tif for one file, or s3://BUCKET/PREFIX/NAME.szi.")
    var output = "."

    @Option(help: "How to store the pyramid: folder (NAME.dzi + NAME_files/), szi (one NAME.szi) or tiff (one NAME.tif).")
    var container: String?

    @Flag(help: "With --container tiff: write BigTIFF even when the file would fit in 4 GiB.")
    var bigtiff = false

    @Option(help: "The pyramid's name (default: the input's base name).")
    var name: String?

    @Option(help: "Tile edge in pixels, 1–8192.")
    var tileSize = 256

    @Option(help: "Pixels each tile repeats from its neighbours (DZI overlap).")
    var overlap = 0

    @Option(help: "Tile format: auto (PNG when the source has alpha, else JPEG), jpg, png or webp.")
    var format = "auto"

    @Option(help: "JPEG or WebP tile quality, 1–100 (with --lossless: the WebP effort, 100 smallest).")
    var quality = 85

    @Flag(help: "Lossless WebP tiles (with --format webp).")
    var lossless = false

    @Option(help: "PNG tile zlib level, 0–9.")
    var pngLevel = 6

    @Flag(help: "Compute optimised Huffman tables for JPEG tiles (smaller, about half the encoding speed).")
    var optimizeHuffman = false

    @Option(help: "Encoding and writing threads (default: the number of cores).")
    var threads: Int?

    @Flag(help: "Keep the stored orientation: ignore the EXIF orientation tag.")
    var noAutorotate = false

    @Flag(help: "Keep the stored colour numbers: no conversion to sRGB from an embedded profile or PNG colour chunks.")
    var keepColour = false

    @Flag(help: "Fail on a broken or unsupported colour profile instead of warning and taking the image as sRGB.")
    var strictColour = false

    @Flag(help: "Replace an existing pyramid of the same name (only once the new one is complete).")
    var force = false

    @OptionGroup var decoding: DecodingOptions

    @Flag(name: .shortAndLong, help: "No progress output and no summary line.")
    var quiet = false

    @Flag(help: "Print a JSON summary on standard output at the end.")
    var json = false

    func validate() throws {
        guard Pyramid.tileSizeLimits.contains(tileSize) else { throw ValidationError("--tile-size must be 1–8192") }
        guard (0..<tileSize).contains(overlap) else { throw ValidationError("--overlap must be 0 to tile size − 1") }
        guard ["auto", "jpg", "jpeg", "png", "webp"].contains(format) else { throw ValidationError("--format must be auto, jpg, png or webp") }
        guard !lossless || format == "webp" else { throw ValidationError("--lossless needs --format webp") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1–100") }
        guard (0...9).contains(pngLevel) else { throw ValidationError("--png-level must be 0–9") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1–256") }
        if keepColour && strictColour { throw ValidationError("--keep-colour and --strict-colour cannot be used together") }
        if let name { try SliceRequest.validate(name: name) }
        if let container, PyramidContainer(rawValue: container) == nil { throw ValidationError("--container must be folder, szi or tiff") }
        if let implied = PyramidContainer.implied(byOutput: output) {
            guard container == nil || container == implied.rawValue else {
                throw ValidationError("-o \(output) names a .\(implied.rawValue) file but --container is \(container!)")
            }
            guard name == nil else { throw ValidationError("-o \(output) names the file: leave out --name") }
        }
        if bigtiff && destination.container != .tiff { throw ValidationError("--bigtiff needs --container tiff (or -o NAME.tif)") }
    }

    /// The folder, name and container `-o`, `--name` and `--container` ask for.
    var destination: (folder: String, name: String?, container: PyramidContainer, fileExtension: String?) {
        if let implied = PyramidContainer.implied(byOutput: output) {
            // As given, not made absolute: the summary names the file as `-o` did, as it names a folder pyramid's.
            let path = output as NSString
            let folder = path.deletingLastPathComponent
            let file = path.lastPathComponent as NSString
            // The extension as given (`.tiff`, `.TIF`): the file written, or replaced with --force, is the one named.
            return (folder.isEmpty ? "." : folder, file.deletingPathExtension, implied, "." + file.pathExtension)
        }
        return (output, name, container.flatMap(PyramidContainer.init(rawValue:)) ?? .folder, nil)
    }

    func run() throws {
        if StoreDestination.names(output) { return try runToStore(StoreDestination(parsing: output)) }
        let destination = destination
        if let name = destination.name { try SliceRequest.validate(name: name, source: self.name == nil ? "-o \(output)" : "--name") }
        let request = SliceRequest(
            input: input, output: destination.folder, name: destination.name, container: destination.container,
            containerExtension: destination.fileExtension, bigTIFF: bigtiff, tileSize: tileSize,
            overlap: overlap,
            format: format, quality: quality,
            pngLevel: pngLevel, optimizeHuffman: optimizeHuffman, lossless: lossless,
            threads: threads ?? ProcessInfo.processInfo.activeProcessorCount, force: force, autorotate: !noAutorotate, decodeOptions: decodeOptions())
        let (summary, header) = try request.run(showProgress: !quiet)
        self.report(SliceReport(input: input, summary: summary, header: header, autorotate: !noAutorotate, keptColour: keepColour))
    }

    /// `-o s3://BUCKET/PREFIX/NAME.szi`: checks the bucket, then slices into a private staging folder in the temporary
    /// folder while a multipart upload sends the container on as it is written (``StreamingUpload``); the object
    /// appears, whole, when the upload completes. A failed or interrupted slice aborts the upload; the staging folder
    /// is removed whatever happens.
    private func runToStore(_ store: StoreDestination) throws {
        let publisher = try StorePublisher(store, environment: ProcessInfo.processInfo.environment)
        defer { publisher.shutdown() }
        try publisher.check(force: force)
        for line in try publisher.sweepLeftovers() { StandardError.print("tiler: \(line)") }
        let staging = try StagingFolder.create()
        defer { staging.remove() }
        let cancellation = SliceCancellation()
        let upload = try publisher.start(tiff: store.container == .tiff) { cancellation.cancel() }
        var request = SliceRequest(
            input: input, output: staging.path, name: store.name, container: store.container, containerExtension: store.fileExtension,
            bigTIFF: bigtiff, tileSize: tileSize, overlap: overlap, format: format, quality: quality, pngLevel: pngLevel,
            optimizeHuffman: optimizeHuffman, lossless: lossless, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
            force: force, autorotate: !noAutorotate, decodeOptions: decodeOptions())
        request.onBodyWritten = { path, through in upload.bodyWritten(path: path, through: through) }
        request.cancellation = cancellation
        request.stopReason = { upload.failure.map { CommandFailure("cannot write \(store.url): \($0)") } }
        let sliced: SliceSummary
        let header: ImageHeader
        do {
            (sliced, header) = try request.run(showProgress: !quiet)
        } catch {
            try publisher.abort(upload, after: error)
            throw error
        }
        var summary = sliced
        let sentWhileSlicing = Int(upload.bodyBytesSent)
        let front = store.container == .tiff ? summary.path : nil
        let started = Date()
        try publisher.publish(upload, front: front)
        summary.seconds += Date().timeIntervalSince(started)
        summary.path = store.url
        report(
            SliceReport(
                input: input, summary: summary, header: header, autorotate: !noAutorotate, keptColour: keepColour,
                sentWhileSlicing: sentWhileSlicing))
    }

    private func report(_ report: SliceReport) {
        if json {
            print(report.json)
        } else if !quiet {
            StandardError.print(report.text)
        }
    }

    private func decodeOptions() -> DecodeOptions {
        var options = decoding.decodeOptions()
        options.colour = keepColour ? .keep : strictColour ? .strict : .convert
        return options
    }
}
