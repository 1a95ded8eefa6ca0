/// What an image file's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    /// The container format, from the magic bytes.
    public var format: ImageFormat
    /// Width in pixels (before any EXIF orientation is applied).
    public var width: Int
    /// Height in pixels (before any EXIF orientation is applied).
    public var height: Int
    /// What rows are delivered as: always 8-bit; alpha when the source has alpha or a tRNS chunk.
    public var pixelFormat: PixelFormat
    /// Samples per delivered pixel: `pixelFormat.channels`.
    public var channels: Int
    /// The source's bits per sample (PNG 1–16, JPEG 8).
    public var bitDepth: Int
    /// The source colour type in words: PNG `"gray"`, `"gray+alpha"`, `"rgb"`, `"rgba"`, `"palette"`;
    /// JPEG `"gray"`, `"ycbcr"`, `"rgb"`, `"cmyk"`, `"ycck"`.
    public var colorType: String
    /// Adam7-interlaced PNG: cannot be streamed, so the first read decodes the whole image.
    public var interlaced: Bool
    /// Progressive JPEG (libjpeg buffers the coefficients of the whole image while decoding it).
    public var progressive: Bool
    /// JPEG chroma sampling, e.g. `"4:2:0"`; nil for PNG and grayscale JPEG.
    public var chromaSubsampling: String?
    /// EXIF orientation 1–8 when the file has one: a PNG eXIf chunk before the image data, a JPEG
    /// APP1 Exif marker, or a TIFF Orientation tag. Rows are always delivered as stored; applying the
    /// orientation is the caller's choice.
    public var orientation: Int?
    /// The embedded ICC profile's bytes (TIFF `ICCProfile` tag), or nil. Rows are delivered without
    /// converting them; colour management is the caller's choice.
    public var iccProfile: [UInt8]? = nil
    /// For TIFF: how the page is stored (strips or tiles, compression, pages); nil for other formats.
    public var tiff: TIFFLayout? = nil

    /// What the file says about its colours (profile, PNG colour chunks, or nothing).
    public var colourTag: ColourTag = .untagged
    /// How delivered rows differ from the stored numbers, e.g. `"ICC profile \"Adobe RGB (1998)\" → sRGB"`;
    /// nil when rows carry the stored numbers (untagged, sRGB, `--keep-colour`).
    public var colourConversion: String?

    /// The size once `orientation` is applied: width and height swap for orientations 5–8.
    public var displaySize: (width: Int, height: Int) {
        (orientation ?? 1) >= 5 ? (height, width) : (width, height)
    }

    /// Whether rows can be decoded in strips with memory O(width × strip height): not for interlaced PNGs, and not
    /// for WebP, which libwebp decodes whole (at most 16383² pixels).
    public var canStream: Bool { !interlaced && format != .webp }

    /// The number of pixels, `width × height`.
    public var pixelCount: Int { width * height }
}
