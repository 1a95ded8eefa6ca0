import ImageCodecs
import Synchronization

/// The conversion of a stored pyramid's pixels to sRGB (its embedded ICC profile through Little CMS, as `tiler slice`
/// converts), shared by the threads that make its tiles: one transform, used under a lock (a conversion of a tile's
/// pixels takes well under a millisecond).
package final class StoredColour: Sendable {
    private let transform: Mutex<ColourTransform>
    package let channels: Int

    /// A conversion from `profile` for pixels of `channels` (1, 3 or 4) 8-bit samples; nil when the profile cannot be
    /// used (the pixels are then taken as sRGB, as `tiler slice` does with a broken profile, and the catalog says so).
    package init?(profile: [UInt8], channels: Int) {
        let space: ColourInput.Space = channels <= 2 ? .gray : .rgb
        guard let transform = try? ColourTransform(iccProfile: profile, input: ColourInput(space: space, hasAlpha: channels == 2 || channels == 4))
        else { return nil }
        guard transform.outputChannels == channels else { return nil }
        self.transform = Mutex(transform)
        self.channels = channels
    }

    /// `pixels` converted to sRGB.
    package func converted(_ pixels: PixelBuffer) -> PixelBuffer {
        var output = [UInt8](repeating: 0, count: pixels.bytes.count)
        pixels.bytes.withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer { destination in
                transform.withLock { $0.apply(source.baseAddress!, to: destination.baseAddress!, pixels: pixels.width * pixels.height) }
            }
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, pixelFormat: pixels.pixelFormat, bytes: output)
    }
}
