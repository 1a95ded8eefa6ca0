// codec-bench: megapixels per second for Tiler's codecs on one core (run with -c release).
//
//   codec-bench [--size N] [--out DIR]   generate an N×N photo-like image (default 8192), write it as
//                                        JPEG Q90 4:4:4, PNG level 6 and PPM into DIR, and time
//                                        decoding and 256×256 tile encoding
//   codec-bench --decode FILE            time streaming one file and report peak memory
//   codec-bench --encode-ppm FILE        time whole-image JPEG Q85 4:2:0 encoding of a binary PPM
//   codec-bench --tiles FILE             time 256×256 JPEG tile encoding of a binary PPM
//
// Each measurement prints a line and a `RESULT key value` line that bench/codecs.sh reads.
import ImageCodecs

#if canImport(Glibc)
    import Glibc
#endif

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

do {
    if let file = option("--encode-ppm") {
        try Benchmarks.encodePPM(path: file)
    } else if let file = option("--tiles") {
        try tileSuite(Benchmarks.readPPM(path: file), png: false)
    } else if let file = option("--decode") {
        try Benchmarks.decode(path: file, key: "decode", label: "stream \(file) in 256-row strips", runs: 1)
        print("RESULT peak_rss_mib \(Benchmarks.format(Stopwatch.peakRSSMiB(), 0))")
    } else {
        try runSuite(size: Int(option("--size") ?? "") ?? 8192, directory: option("--out") ?? "/tmp/tiler-codec-bench")
    }
} catch {
    print("codec-bench: \(error)")
    exit(1)
}

func runSuite(size: Int, directory: String) throws {
    mkdir(directory, 0o755)
    print("codec-bench: \(size)×\(size) procedural RGB image, one thread, best of 5 runs (PNG: 1)")
    var start = Stopwatch.now()
    let image = ProceduralImage.make(size: size)
    print("generated in \(Benchmarks.format(Stopwatch.now() - start, 0, digits: 2)) s")
    let megapixels = Double(size * size) / 1e6
    let jpegPath = "\(directory)/image-\(size).jpg"
    let pngPath = "\(directory)/image-\(size).png"
    try Benchmarks.writePPM(image, to: "\(directory)/image-\(size).ppm")
    try Benchmarks.writePPM(Tiles.crop(image, side: min(size, 2048)), to: "\(directory)/crop-2048.ppm")

    print("\n-- whole-image encode (one call each)")
    var jpeg: [UInt8] = []
    let q90 = try JPEGEncoder(quality: 90, subsampling: .s444)
    Benchmarks.report(
        "jpeg_encode_q90_444", "JPEG Q90 4:4:4", megapixels: megapixels, seconds: try Stopwatch.best(of: 1) { jpeg = try q90.encode(image) })
    try Benchmarks.write(jpeg, to: jpegPath)
    for optimize in [false, true] {
        let encoder = try JPEGEncoder(quality: 85, optimizeHuffman: optimize)
        let seconds = try Stopwatch.best(of: 5) { _ = try encoder.encode(image) }
        Benchmarks.report(
            "jpeg_encode_q85_420\(optimize ? "_opt" : "")", "JPEG Q85 4:2:0\(optimize ? " optimised Huffman" : "")", megapixels: megapixels,
            seconds: seconds)
    }
    // A PNG encoder's default (adaptive filters, level 6), like the files Tiler will be given.
    start = Stopwatch.now()
    let png = try PNGEncoder(compressionLevel: 6, filter: .adaptive).encode(image)
    Benchmarks.report("png_encode_l6_adaptive", "PNG level 6, adaptive filters", megapixels: megapixels, seconds: Stopwatch.now() - start)
    try Benchmarks.write(png, to: pngPath)
    print("files: \(jpegPath) \(jpeg.count / 1_048_576) MiB, \(pngPath) \(png.count / 1_048_576) MiB")

    print("\n-- streaming decode, 256-row strips")
    try Benchmarks.decode(path: jpegPath, key: "jpeg_decode", label: "JPEG Q90 4:4:4")
    try Benchmarks.decode(path: pngPath, key: "png_decode", label: "PNG level 6")

    try tileSuite(image)
}

func tileSuite(_ image: PixelBuffer, png: Bool = true) throws {
    let rows = min(image.height, 2048)
    print("\n-- 256×256 tiles cut from the \(image.width)-wide buffer (top \(rows) rows), one encoder reused")
    for optimize in [false, true] {
        let encoder = try JPEGEncoder(quality: 85, optimizeHuffman: optimize)
        try Benchmarks.tiles(
            of: image, rows: rows, key: "tile_jpeg_q85_420\(optimize ? "_opt" : "")",
            label: "JPEG Q85 4:2:0\(optimize ? " optimised Huffman" : "")", encode: encoder.encode)
    }
    guard png else { return }
    let pngRows = min(image.height, 512)
    for (filter, level) in [(PNGEncoder.Filter.sub, 6), (.none, 6), (.up, 6), (.paeth, 6), (.adaptive, 6), (.sub, 1), (.sub, 9)] {
        let encoder = try PNGEncoder(compressionLevel: level, filter: filter)
        try Benchmarks.tiles(
            of: image, rows: pngRows, key: "tile_png_l\(level)_\(filter)", label: "PNG level \(level), filter \(filter) (top \(pngRows) rows)",
            runs: 2, minimumMegapixels: 0, encode: encoder.encode)
    }
}
