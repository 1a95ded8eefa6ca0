import Slicing

/// A lossless tile format for the tests: Netpbm PAM (`P7`), raw 8-bit samples after a text header.
///
/// The codecs proper (PNG, JPEG) live in ImageCodecs; PAM lets these tests read every tile back exactly.
final class PAMTileEncoding: TileEncoding {

    func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        let tupleTypes = ["GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"]
        let header = "P7\nWIDTH \(width)\nHEIGHT \(height)\nDEPTH \(channels)\nMAXVAL 255\nTUPLTYPE \(tupleTypes[channels - 1])\nENDHDR\n"
        var bytes = Array(header.utf8)
        bytes.reserveCapacity(bytes.count + width * height * channels)
        for row in 0..<height {
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + row * rowStride, count: width * channels))
        }
        return bytes
    }
}

/// A decoded PAM file.
struct PAMImage: Equatable, CustomStringConvertible {
    var width: Int
    var height: Int
    var channels: Int
    var pixels: [UInt8]

    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses a PAM file as written by ``PAMTileEncoding``.
    init(decoding bytes: [UInt8]) throws {
        let marker = Array("ENDHDR\n".utf8)
        guard let end = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) }) else {
            throw FormatError(description: "no ENDHDR")
        }
        var fields: [String: Int] = [:]
        for line in String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let width = fields["WIDTH"], let height = fields["HEIGHT"], let depth = fields["DEPTH"] else {
            throw FormatError(description: "missing size fields")
        }
        self.width = width
        self.height = height
        self.channels = depth
        self.pixels = Array(bytes[(end + marker.count)...])
        guard pixels.count == width * height * depth else {
            throw FormatError(description: "\(pixels.count) sample bytes for \(width)×\(height)×\(depth)")
        }
    }

    /// Size and a checksum: failed comparisons print this, not a quarter-million samples.
    var description: String {
        "PAM \(width)×\(height)×\(channels), sample sum \(pixels.reduce(0) { $0 + Int($1) })"
    }

    init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}
