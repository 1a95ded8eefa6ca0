/// How strictly to decode, and how big an image to accept.
public struct DecodeOptions: Sendable {
    /// The largest `width × height` accepted, checked from the header before any pixel memory is
    /// allocated. Default 2^34 (a 131072² image).
    public var maxPixels: Int = 1 << 34
    /// When false (the default), damaged data is an error: libjpeg's "Corrupt JPEG data" and
    /// "Premature end of JPEG file", PNG CRC errors and libpng's benign errors all throw. When true
    /// they become warnings for `onWarning`; a JPEG decodes on with libjpeg's fill-in, and a PNG that
    /// breaks off mid-image delivers its remaining rows as zeros.
    public var lenient: Bool = false
    /// Receives warnings as one line each, prefixed with the path (at most 100 per file). Called on
    /// the thread that is decoding, while it decodes.
    public var onWarning: (@Sendable (String) -> Void)?
    /// Which page of a multi-page file to read, from 0 (TIFF); nil reads the first full-resolution page (a
    /// pyramidal TIFF's largest). Any page but 0 of a PNG or JPEG is an error.
    public var page: Int?
    /// What to do with embedded colour profiles and colour chunks: convert to sRGB (the default), keep the
    /// numbers, or convert and fail on a profile that cannot be used.
    public var colour: ColourPolicy = .convert
    /// A JPEG decoded at 1/`jpegScale` of its size (1, 2, 4 or 8) with libjpeg's DCT scaling — a quick coarse image:
    /// the header then says ceil(width / scale) × ceil(height / scale). Other formats ignore it.
    public var jpegScale: Int = 1
    /// Whether a large JPEG (16 MP or more, sequential, unsubsampled: 4:4:4 or grey) may be decoded on two threads —
    /// its entropy decoding on a thread of the decoder's own, the inverse DCT and colour conversion on the reading
    /// thread — to the same rows. On by default; a lenient decode never is. About a fifth of such a file's decoding
    /// time leaves the reading thread (the 32768² Q90 4:4:4 sample: 6.4 s of decoding, 5.0 s of it entropy decoding).
    public var pipelinedJPEG: Bool = true

    /// Creates options; the defaults fail loudly on damage and accept up to 2^34 pixels.
    public init(
        maxPixels: Int = 1 << 34, lenient: Bool = false, onWarning: (@Sendable (String) -> Void)? = nil, page: Int? = nil,
        colour: ColourPolicy = .convert
    ) {
        self.maxPixels = maxPixels
        self.lenient = lenient
        self.onWarning = onWarning
        self.page = page
        self.colour = colour
    }
}
