/// Splits a JPEG file into its tables and an abbreviated stream, as JPEG-compressed TIFF tiles are stored: the
/// quantisation and Huffman tables once in the `JPEGTables` tag (SOI, DQT…, DHT…, EOI), each tile without them (SOI,
/// SOF, SOS, entropy-coded data, EOI). `tables` without its EOI followed by the tile without its SOI is a standalone
/// JPEG again (what the server's pass-through sends).
public enum JPEGTables {
    /// The parts of one JPEG file.
    public struct Split: Sendable, Equatable {
        /// SOI, the DQT and DHT segments in file order, EOI.
        public let tables: [UInt8]
        /// SOI, every segment before the scan but the tables, application data and comments (SOF, DRI, …), then
        /// the scan to the end of the file.
        public let abbreviated: [UInt8]
    }

    /// Splits `jpeg`, or nil when it is not a baseline-shaped JPEG this understands (no SOI, a segment running past
    /// the end, no SOS). - Complexity: O(header bytes); the scan data is copied once.
    public static func split(_ jpeg: [UInt8]) -> Split? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var tables: [UInt8] = [0xFF, 0xD8]
        var abbreviated: [UInt8] = [0xFF, 0xD8]
        abbreviated.reserveCapacity(jpeg.count)
        var at = 2
        while at + 4 <= jpeg.count {
            guard jpeg[at] == 0xFF else { return nil }
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            guard length >= 2, at + 2 + length <= jpeg.count else { return nil }
            let segment = jpeg[at..<at + 2 + length]
            switch marker {
            case 0xDA:  // SOS: the rest is the scan.
                abbreviated.append(contentsOf: jpeg[at...])
                tables += [0xFF, 0xD9]
                return Split(tables: tables, abbreviated: abbreviated)
            case 0xDB, 0xC4:  // DQT, DHT
                tables.append(contentsOf: segment)
            case 0xE0...0xEF, 0xFE:  // APPn (JFIF, Exif, Adobe), COM: not kept in TIFF tiles.
                break
            default:
                abbreviated.append(contentsOf: segment)
            }
            at += 2 + length
        }
        return nil
    }
}
