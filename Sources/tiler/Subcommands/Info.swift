import ArgumentParser
import Foundation
import ImageCodecs
import TileGeometry

/// `tiler info`: prints what a PNG or JPEG holds and the pyramid it would make, reading only the header; for an SZI or
/// a pyramidal TIFF, the pyramid it holds and whether `tiler serve` passes its tiles through.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image's header facts and the pyramid it would produce (reads only the header).",
        discussion: """
            Answers instantly even for gigapixel files: only the header is read. With --verify, every row is \
            also decoded, strip by strip in memory bounded by the width, and any damage fails the command. For an \
            SZI (one-file Deep Zoom pyramid) or a folder pyramid's .dzi it lists the levels and tiles it holds and \
            what it records of the slide it was sliced from; for a pyramidal TIFF, also its stored levels and which \
            of them tiler serve passes through as stored; for a slide, what OpenSlide reads of it.
            """
    )

    @Argument(help: "A PNG, JPEG, TIFF or WebP file (recognised by its content, not its name), a slide, an SZI, or a folder pyramid's .dzi.")
    var image: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Also decode every row and fail on damage anywhere in the file.")
    var verify = false

    @OptionGroup var decoding: DecodingOptions

    @Option(help: "Tile size of the pyramid to describe, in pixels.")
    var tileSize = 256

    func validate() throws {
        guard (1...8192).contains(tileSize) else { throw ValidationError("--tile-size must be between 1 and 8192") }
    }

    func run() throws {
        // Before anything opens the path: opening a named pipe would wait for a writer.
        try ImageDecoder.refuseSpecialFile(path: image)
        if FolderReport.isDescriptor(image) {
            let report = try FolderReport(path: image)
            print(json ? report.json : report.text, terminator: "")
            return
        }
        if ArchiveReport.isArchive(image) {
            let report = try ArchiveReport(path: image)
            print(json ? report.json : report.text, terminator: "")
            return
        }
        let options = decoding.decodeOptions()
        let header = try ImageDecoder.readHeader(path: image, options: options)
        var verifiedRows: Int?
        if verify {
            verifiedRows = try ImageVerifier.verify(path: image, options: options)
        }
        // The pyramid `tiler slice` makes by default: displayed orientation.
        let pyramid = Pyramid(width: header.displaySize.width, height: header.displaySize.height, tileSize: tileSize, overlap: 0)
        var report = InfoReport(path: image, header: header, pyramid: pyramid, verifiedRows: verifiedRows)
        if header.format == .tiff { report.stored = try? TIFFPyramid(path: image) }
        if header.format == .tiff || header.format == .slide { report.slide = InfoReport.SlideFacts(path: image) }
        print(json ? report.json : report.text, terminator: "")
    }
}
