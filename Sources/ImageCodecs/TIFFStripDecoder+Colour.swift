import CTIFF

extension TIFFStripDecoder {
    /// Reads the ICC profile (TIFF tag 34675) into `header.colourTag` and builds the transform it needs, through the
    /// same ``ColourManagement`` decision as JPEG and PNG. With a transform the reader delivers the stored numbers
    /// (CMYK as ink, 16-bit at full depth) for it to convert; CMYK without a usable profile is converted with the
    /// uncalibrated formula, and the warning handler is told so.
    func colourSetup(_ header: inout ImageHeader, options: DecodeOptions, path: String) throws(CodecError) -> ColourTransform? {
        if let bytes = header.iccProfile {
            do throws(ColourError) {
                header.colourTag = .iccProfile(try ICCProfile(bytes: bytes))
            } catch {
                header.colourTag = .brokenProfile(error.message)
            }
        }
        let cmyk = header.colorType.hasPrefix("cmyk")
        let warn = { (line: String) -> Void in options.onWarning?("\(path): \(line)") }
        let rgbaPath = header.tiff?.readPath == .rgba
        let space: ColourInput.Space = cmyk ? .cmyk : header.pixelFormat.channels <= 2 ? .gray : .rgb
        let wide = header.bitDepth == 16 && header.colorType != "palette" && !rgbaPath
        let input = ColourInput(space: space, bytesPerSample: wide ? 2 : 1, hasAlpha: header.pixelFormat.hasAlpha)
        let transform = try ColourManagement.transform(for: header.colourTag, input: input, policy: options.colour, path: path, warn: warn)
        if let transform {
            if !rgbaPath {
                var bytes: Int32 = 1
                guard tiler_tiff_reader_keep_source(reader, &bytes) == TILER_TIFF_OK, Int(bytes) == input.bytesPerSample else {
                    throw CodecError(kind: .corrupt, path: path, message: message)
                }
            }
            header.colourConversion = "\(header.colourTag.summary) → sRGB"
            return transform
        }
        if cmyk { ColourManagement.noteUncalibratedInk("CMYK", header: &header, policy: options.colour, warn: warn) }
        return nil
    }
}
