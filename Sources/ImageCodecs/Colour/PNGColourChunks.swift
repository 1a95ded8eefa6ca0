/// Reads PNG's colour chunks into a ``ColourTag``: `iCCP` first, then `sRGB`, then `gAMA` / `cHRM`, as the PNG
/// specification orders them.
enum PNGColourChunks {
    /// The largest decompressed profile accepted (real profiles are kilobytes; a few CMYK ones a few megabytes).
    static let profileLimit = 64 << 20

    /// - Parameters:
    ///   - chunk: The raw data of a chunk by name, or nil when absent.
    ///   - inflate: zlib decompression with a size limit, nil on damaged data.
    static func tag(chunk: (String) -> [UInt8]?, inflate: ([UInt8], Int) -> [UInt8]?) -> ColourTag {
        if let iccp = chunk("iCCP") { return profile(iccp, inflate: inflate) }
        if let srgb = chunk("sRGB"), srgb.count == 1 { return .srgbChunk(intent: Int(srgb[0])) }
        var gamma: Double?
        if let gama = chunk("gAMA"), gama.count == 4 {
            let value = word(gama, 0)
            if value > 0 { gamma = Double(value) / 100_000 }
        }
        var chromaticities: [Double]?
        if let chrm = chunk("cHRM"), chrm.count == 32 {
            let values = (0..<8).map { Double(word(chrm, $0 * 4)) / 100_000 }
            if values.allSatisfy({ $0 > 0 && $0 < 1 }) { chromaticities = values }
        }
        if gamma == nil && chromaticities == nil { return .untagged }
        return .chunks(gamma: gamma, chromaticities: chromaticities)
    }

    private static func profile(_ data: [UInt8], inflate: ([UInt8], Int) -> [UInt8]?) -> ColourTag {
        guard let end = data.prefix(80).firstIndex(of: 0), end >= 1, end + 1 < data.count else {
            return .brokenProfile("iCCP chunk has no valid profile name")
        }
        guard data[end + 1] == 0 else { return .brokenProfile("iCCP chunk uses unknown compression method \(data[end + 1])") }
        guard let bytes = inflate(Array(data[(end + 2)...]), profileLimit) else {
            return .brokenProfile("iCCP chunk's compressed profile is damaged")
        }
        do {
            return .iccProfile(try ICCProfile(bytes: bytes))
        } catch {
            return .brokenProfile(error.message)
        }
    }

    private static func word(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
