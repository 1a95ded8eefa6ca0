/// The contents of a Deep Zoom `.dzi` descriptor: image size, tile size, overlap and tile format.
///
/// Rendering is pure string work; reading a file is the caller's business.
public struct DZIDescriptor: Sendable, Hashable {
    /// The full-resolution image width, in pixels.
    public var width: Int
    /// The full-resolution image height, in pixels.
    public var height: Int
    /// The tile edge, in pixels.
    public var tileSize: Int
    /// The DZI overlap, in pixels.
    public var overlap: Int
    /// The tile file extension without a dot, e.g. `jpg` or `png`.
    public var format: String

    /// Creates a descriptor.
    public init(width: Int, height: Int, tileSize: Int, overlap: Int, format: String) {
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
        self.format = format
    }

    /// The pyramid this descriptor describes.
    public var pyramid: Pyramid { Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap) }

    /// The descriptor as XML text, in the Deep Zoom 2008 schema, ending with a newline.
    public var xml: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="\(format)" Overlap="\(overlap)" \
        TileSize="\(tileSize)">
          <Size Width="\(width)" Height="\(height)"/>
        </Image>

        """
    }
}
