/// How a JPEG encoder samples the two chroma channels relative to luma.
public enum ChromaSubsampling: String, Sendable, CaseIterable {
    /// Full-resolution chroma: largest files, sharpest colour edges.
    case s444 = "4:4:4"
    /// Chroma halved horizontally.
    case s422 = "4:2:2"
    /// Chroma halved both ways: the usual choice for photographic tiles.
    case s420 = "4:2:0"
}
