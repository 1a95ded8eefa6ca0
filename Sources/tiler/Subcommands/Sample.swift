import ArgumentParser
import Foundation
import ImageCodecs
import SampleImage

/// `tiler sample`: writes a deterministic, photo-like procedural picture of any size (demo and benchmark input).
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a photo-like procedural test picture (PNG or JPEG, chosen by the file's extension).",
        discussion: "The same size and seed always give the same pixels. Rendering streams: any size fits in memory."
    )

    @Argument(help: "The file to write: NAME.jpg, NAME.jpeg or NAME.png.")
    var output: String

    @Option(help: "The picture's size, WIDTHxHEIGHT in pixels.")
    var size = "4096x4096"

    @Option(help: "The seed of the picture.")
    var seed: UInt64 = 1

    @Option(help: "JPEG quality, 1–100.")
    var quality = 90

    @Option(help: "JPEG chroma subsampling: 444, 422 or 420.")
    var subsampling = "444"

    @Option(help: "PNG zlib compression level, 0–9.")
    var pngLevel = 6

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        _ = try dimensions()
        _ = try format()
    }

    func run() throws {
        let (width, height) = try dimensions()
        let image = ProceduralImage(width: width, height: height, seed: seed)
        let start = Date()
        let meter = quiet ? nil : ProgressLine(label: "sample", total: height, unit: "rows")
        try SignalHub.shared.whileCancellable { isCancelled in
            try image.write(to: output, format: try format(), isCancelled: isCancelled) { rows in meter?.update(rows, pixels: rows * width) }
        }
        meter?.finish()
        if !quiet {
            let seconds = Date().timeIntervalSince(start)
            StandardError.print("wrote \(output): \(width) × \(height) in \(String(format: "%.1f", seconds)) s")
        }
    }

    func dimensions() throws -> (Int, Int) {
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 1, height >= 1,
            width <= 1 << 20, height <= 1 << 20
        else { throw ValidationError("--size must be WIDTHxHEIGHT with each side 1 to 1048576, got '\(size)'") }
        return (width, height)
    }

    func format() throws -> ImageFileWriter.Format {
        let lower = output.lowercased()
        if lower.hasSuffix(".png") {
            guard (0...9).contains(pngLevel) else { throw ValidationError("--png-level must be 0–9") }
            return .png(compressionLevel: pngLevel)
        }
        guard lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") else {
            throw ValidationError("the output must end in .jpg, .jpeg or .png: '\(output)'")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1–100") }
        guard let sampling = ChromaSubsampling(rawValue: subsampling.map(String.init).joined(separator: ":")) else {
            throw ValidationError("--subsampling must be 444, 422 or 420")
        }
        let (width, height) = try dimensions()
        guard width <= 65_500, height <= 65_500 else { throw ValidationError("JPEG sides are at most 65500 pixels") }
        return .jpeg(quality: quality, subsampling: sampling, progressive: false)
    }
}
