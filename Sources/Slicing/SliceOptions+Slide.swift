extension SliceOptions {
    /// Records the slide at `path` with its pyramid: its properties (``properties``) and its associated images
    /// (``associatedImages``). Nothing when OpenSlide does not read the file as a slide of `width` × `height` pixels (a
    /// photograph, a plain TIFF, a later page). Opens the slide once.
    public mutating func recordSlide(at path: String, width: Int, height: Int, bands: Int) {
        guard let slide = PyramidProperties.slide(at: path, width: width, height: height) else { return }
        properties = PyramidProperties(width: width, height: height, bands: bands, slideProperties: slide.properties)
        associatedImages = AssociatedImage.all(of: slide)
    }
}
