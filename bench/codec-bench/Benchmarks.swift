import ImageCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// The measurements codec-bench makes; each prints one line and a `RESULT key value` line for scripts.
enum Benchmarks {
    static func report(_ key: String, _ label: String, megapixels: Double, seconds: Double, extra: String = "") {
        let rate = megapixels / seconds
        let padded = label + String(repeating: " ", count: max(0, 52 - label.count))
        print("\(padded) \(format(rate, 7)) MP/s  \(format(seconds, 7, digits: 3)) s\(extra)")
        print("RESULT \(key) \(format(rate, 0))")
    }

    static func format(_ value: Double, _ width: Int, digits: Int = 1) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            text += String(repeating: "0", count: max(0, digits - decimals))
        }
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// Streams `path` in strips of 256 rows, as the pyramid builder will. Best of `runs`.
    static func decode(path: String, key: String, label: String, runs: Int = 5) throws {
        let header = try ImageDecoder.readHeader(path: path)
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: header.width * header.channels * 256)
        defer { strip.deallocate() }
        let seconds = try Stopwatch.best(of: runs) {
            let reader = try ImageDecoder.open(path: path)
            while try reader.readRows(into: strip, rowCount: 256) == 256 {}
        }
        report(key, label, megapixels: Double(header.pixelCount) / 1e6, seconds: seconds)
    }

    /// Encodes every 256×256 tile of the top `rows` rows of `image` straight out of the wide buffer,
    /// repeating the pass until it covers at least `minimumMegapixels` so one timing outlasts short
    /// bursts of other load. Best of `runs`.
    static func tiles(
        of image: PixelBuffer, rows: Int, key: String, label: String, runs: Int = 5, minimumMegapixels: Double = 64,
        encode: (UnsafePointer<UInt8>, Int, Int, Int, PixelFormat) throws -> [UInt8]
    ) throws {
        let passMegapixels = Double(image.width * rows) / 1e6
        let passes = max(1, Int((minimumMegapixels / passMegapixels).rounded(.up)))
        var bytes = 0
        var count = 0
        let seconds = try Stopwatch.best(of: runs) {
            bytes = 0
            count = 0
            for _ in 0..<passes {
                try image.bytes.withUnsafeBufferPointer { buffer in
                    for y in stride(from: 0, to: rows, by: 256) {
                        for x in stride(from: 0, to: image.width, by: 256) {
                            let (w, h) = (min(256, image.width - x), min(256, rows - y))
                            let tile = try encode(buffer.baseAddress! + (y * image.width + x) * 3, w, h, image.rowStride, .rgb)
                            bytes += tile.count
                            count += 1
                        }
                    }
                }
            }
        }
        let extra = "  \(count / passes) tiles × \(passes), \(bytes / max(count, 1) / 1024) KiB avg"
        report(key, label, megapixels: passMegapixels * Double(passes), seconds: seconds, extra: extra)
    }

    /// Writes `image` as a binary PPM, the input format of cjpeg and tjbench.
    static func writePPM(_ image: PixelBuffer, to path: String) throws {
        try write(Array("P6\n\(image.width) \(image.height)\n255\n".utf8) + image.bytes, to: path)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else { throw CodecError(kind: .io, path: path, message: "cannot create") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw CodecError(kind: .io, path: path, message: "cannot write") }
    }

    /// Encodes the PPM at `path` as one JPEG (Q85 4:2:0, plain and optimised), best of 3: the work `cjpeg` does on it.
    static func encodePPM(path: String) throws {
        let image = try readPPM(path: path)
        for optimize in [false, true] {
            let encoder = try JPEGEncoder(quality: 85, optimizeHuffman: optimize)
            let seconds = try Stopwatch.best(of: 3) { _ = try encoder.encode(image) }
            let (key, label) = ("ppm_encode_q85_420\(optimize ? "_opt" : "")", "JPEG Q85 4:2:0\(optimize ? " optimised" : ""), one call")
            report(key, label, megapixels: Double(image.width * image.height) / 1e6, seconds: seconds)
        }
    }

    /// A binary 8-bit PPM (P6) as an RGB buffer.
    static func readPPM(path: String) throws -> PixelBuffer {
        guard let file = fopen(path, "rb") else { throw CodecError(kind: .notFound, path: path, message: "cannot open") }
        defer { fclose(file) }
        var width = 0
        var height = 0
        var maxValue = 0
        guard readPPMHeader(file, &width, &height, &maxValue), maxValue == 255 else {
            throw CodecError(kind: .unsupportedFormat, path: path, message: "not a binary 8-bit PPM")
        }
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        guard fread(&bytes, 1, bytes.count, file) == bytes.count else { throw CodecError(kind: .truncated, path: path, message: "short PPM") }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    /// Reads "P6 <width> <height> <max>" and the single whitespace byte after it.
    private static func readPPMHeader(_ file: UnsafeMutablePointer<FILE>, _ width: inout Int, _ height: inout Int, _ maxValue: inout Int) -> Bool {
        var fields: [Int] = []
        guard getc(file) == 0x50, getc(file) == 0x36 else { return false }
        while fields.count < 3 {
            var c = getc(file)
            while c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { c = getc(file) }
            var value = 0
            while c >= 0x30 && c <= 0x39 {
                value = value * 10 + Int(c - 0x30)
                c = getc(file)
            }
            fields.append(value)
        }
        (width, height, maxValue) = (fields[0], fields[1], fields[2])
        return width > 0 && height > 0
    }
}
