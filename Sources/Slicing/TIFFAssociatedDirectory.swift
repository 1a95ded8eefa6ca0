/// A slide's associated image (``AssociatedImage``) as a sliced TIFF keeps it: a directory of its own after the
/// pyramid's levels, as Aperio keeps its label and macro — striped, one strip holding the whole JPEG file as it is
/// (its own tables, so no JPEGTables tag), NewSubfileType 1 (reduced-resolution image) and the kind alone (`label`,
/// `macro`, `thumbnail`) as its ImageDescription, which is how `TIFFPyramid` finds it again. Readers of pyramids skip
/// it for being striped (OpenSlide's generic-tiff driver, vips, Tiler's own), libtiff decodes it like any JPEG strip.
struct TIFFAssociatedDirectory {
    /// OpenSlide's name for the image (`label`, `macro`, `thumbnail`).
    let kind: String
    /// The JPEG file, stored as the one strip.
    let jpeg: [UInt8]
    /// The image's size in pixels.
    let width: Int, height: Int
    /// 1 (grey) or 3 (YCbCr).
    let components: Int
    /// The luma's sampling factors over the chroma's (YCbCrSubsampling): (1, 1) for 4:4:4, (2, 2) for 4:2:0.
    let subsampling: (horizontal: Int, vertical: Int)

    /// `image` described from its JPEG's frame header; nil for a JPEG a TIFF strip cannot hold as it is (not 8-bit
    /// baseline or extended sequential, not grey or YCbCr with full-resolution chroma of at most 4× less luma, no frame
    /// header before the scan) or larger than ``AssociatedImage/maxBytes``.
    init?(_ image: AssociatedImage) {
        let jpeg = image.jpeg
        guard jpeg.count >= 4, jpeg.count <= AssociatedImage.maxBytes, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            guard length >= 2, at + 2 + length <= jpeg.count, marker != 0xDA else { return nil }
            switch marker {
            case 0xC0, 0xC1:
                guard let frame = Self.frame(jpeg[(at + 4)..<(at + 2 + length)]) else { return nil }
                kind = image.kind
                self.jpeg = jpeg
                width = frame.width
                height = frame.height
                components = frame.components
                subsampling = frame.subsampling
                return
            case 0xC2, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF: return nil  // progressive, lossless, hierarchical, arithmetic
            default: at += 2 + length
            }
        }
        return nil
    }

    /// A frame header's (SOF's) fields after its length: 8-bit samples, a size, one component or three whose chroma
    /// is sampled once (the luma 1, 2 or 4 times across, at most as many times down).
    private static func frame(_ header: ArraySlice<UInt8>) -> (width: Int, height: Int, components: Int, subsampling: (Int, Int))? {
        let bytes = Array(header)
        guard bytes.count >= 6, bytes[0] == 8 else { return nil }
        let height = Int(bytes[1]) << 8 | Int(bytes[2])
        let width = Int(bytes[3]) << 8 | Int(bytes[4])
        let count = Int(bytes[5])
        guard width > 0, height > 0, count == 1 || count == 3, bytes.count >= 6 + 3 * count else { return nil }
        if count == 1 { return (width, height, 1, (1, 1)) }
        let (luma, first, second) = (bytes[7], bytes[10], bytes[13])
        let (horizontal, vertical) = (Int(luma >> 4), Int(luma & 15))
        guard first == 0x11, second == 0x11, [1, 2, 4].contains(horizontal), [1, 2, 4].contains(vertical), vertical <= horizontal else {
            return nil
        }
        return (width, height, 3, (horizontal, vertical))
    }

    /// The directory's entries (ascending tags), its strip at `stripOffset`.
    func entries(stripOffset: UInt64, big: Bool) -> [TIFFFileLayout.Entry] {
        typealias Layout = TIFFFileLayout
        var entries = [
            Layout.Entry(tag: 254, type: Layout.long, count: 1, value: Layout.le(UInt32(1))),
            Layout.Entry(tag: 256, type: Layout.long, count: 1, value: Layout.le(UInt32(width))),
            Layout.Entry(tag: 257, type: Layout.long, count: 1, value: Layout.le(UInt32(height))),
            Layout.Entry(tag: 258, type: Layout.short, count: components, value: Layout.shorts(Array(repeating: 8, count: components))),
            Layout.Entry(tag: 259, type: Layout.short, count: 1, value: Layout.shorts([7])),
            // YCbCr 6, grey 1: the JPEG's own colour space, as the levels' is.
            Layout.Entry(tag: 262, type: Layout.short, count: 1, value: Layout.shorts([components == 3 ? 6 : 1])),
            Layout.Entry(tag: 270, type: Layout.ascii, count: kind.utf8.count + 1, value: Array(kind.utf8) + [0]),
            Layout.Entry(
                tag: 273, type: big ? Layout.long8 : Layout.long, count: 1,
                value: big ? Layout.le(stripOffset) : Layout.le(UInt32(truncatingIfNeeded: stripOffset))),
            Layout.Entry(tag: 277, type: Layout.short, count: 1, value: Layout.shorts([components])),
            Layout.Entry(tag: 278, type: Layout.long, count: 1, value: Layout.le(UInt32(height))),
            Layout.Entry(tag: 279, type: Layout.long, count: 1, value: Layout.le(UInt32(jpeg.count))),
            Layout.Entry(tag: 284, type: Layout.short, count: 1, value: Layout.shorts([1])),
            Layout.Entry(tag: 305, type: Layout.ascii, count: 6, value: Array("tiler\0".utf8)),
        ]
        if components == 3 {
            let factors = Layout.shorts([subsampling.horizontal, subsampling.vertical])
            entries.append(Layout.Entry(tag: 530, type: Layout.short, count: 2, value: factors))
        }
        return entries
    }
}
