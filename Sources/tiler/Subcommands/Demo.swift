import ArgumentParser
import Foundation
import ImageCodecs
import SampleImage
import Slicing
import TileServer

/// `tiler demo`: the built-in default job — generates a large photo-like picture, slices it once into a cache
/// folder, and serves it with the viewer.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate a large demo picture, slice it once, and serve it with the viewer.",
        discussion: """
            The picture (a deterministic, photo-like aerial landscape made by Tiler itself) and its pyramid are kept \
            in the cache folder, so later runs start serving at once.
            """
    )

    @Option(help: "The demo picture's size, WIDTHxHEIGHT in pixels.")
    var size = "16384x16384"

    @Option(help: "The folder that keeps the demo picture and its pyramid.")
    var cache = "demo-cache"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The TCP port; 0 picks a free one.")
    var port = 8080

    @Option(name: .customLong("public"), help: "The viewer folder (default: Public/ beside the executable or in the working directory).")
    var publicDirectory: String?

    @Flag(help: "Prepare the pyramid and exit without serving.")
    var noServe = false

    @Flag(help: "Serve HTTPS with a certificate for localhost made (by openssl) in the cache folder, and say how to trust it.")
    var tls = false

    func validate() throws {
        _ = try Sample.parse(["x.jpg", "--size", size]).dimensions()
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535 (got \(port))") }
    }

    func run() throws {
        let (width, height) = try Sample.parse(["x.jpg", "--size", size]).dimensions()
        let pyramids = cache + "/pyramids"
        let name = "demo-\(width)x\(height)"
        let picture = "\(cache)/\(name).jpg"
        try FileManager.default.createDirectory(atPath: pyramids, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: "\(pyramids)/\(name).dzi") {
            StandardError.print("demo: using the pyramid in \(pyramids)/\(name).dzi")
        } else {
            if !FileManager.default.fileExists(atPath: picture) {
                let meter = ProgressLine(label: "demo picture", total: height, unit: "rows")
                let image = ProceduralImage(width: width, height: height, seed: 2026)
                try SignalHub.shared.whileCancellable { isCancelled in
                    try image.write(to: picture, format: .jpeg(quality: 90), isCancelled: isCancelled) { rows in
                        meter.update(rows, pixels: rows * width)
                    }
                }
                meter.finish()
            }
            let request = SliceRequest(
                input: picture, output: pyramids, name: name, tileSize: 256, overlap: 0, format: "jpg", quality: 85, pngLevel: 6,
                optimizeHuffman: false, threads: ProcessInfo.processInfo.activeProcessorCount, force: true,
                autorotate: true, decodeOptions: DecodeOptions())
            let (summary, header) = try request.run(showProgress: true)
            StandardError.print(SliceReport(input: picture, summary: summary, header: header, autorotate: true, keptColour: false).text)
        }
        guard !noServe else { return }
        var arguments = [pyramids, "--host", host, "--port", String(port)]
        if let publicDirectory { arguments += ["--public", publicDirectory] }
        if tls {
            let certificate = DemoCertificate(folder: cache + "/tls")
            try certificate.prepare()
            StandardError.print(certificate.howToTrust(port: port))
            arguments += ["--tls-cert", certificate.certificate, "--tls-key", certificate.key]
        }
        var serve = try Serve.parse(arguments)
        serve.openHint = name
        try serve.run()
    }
}
