import HTTPCore

/// The size parameter of a IIIF image request (Image API 3.0 §4.2), as written: not yet applied to a region.
package struct IIIFSize: Equatable, Sendable {
    /// The forms of the size parameter, without the `^` prefix.
    package enum Form: Equatable, Sendable {
        /// `max`: the region's own size, shrunk to the server's limits.
        case max
        /// `w,`: this width, the height keeping the aspect ratio.
        case width(Int)
        /// `,h`: this height, the width keeping the aspect ratio.
        case height(Int)
        /// `w,h`: exactly this size (the aspect ratio may change).
        case exact(width: Int, height: Int)
        /// `!w,h`: as large as possible within this box, keeping the aspect ratio.
        case confined(width: Int, height: Int)
        /// `pct:n`: this percentage of the region's size.
        case percent(Double)
    }

    /// The form.
    package var form: Form
    /// Whether it was prefixed with `^`: the result may be larger than the region (upscaling).
    package var upscale: Bool

    /// Parses the size segment of a request.
    ///
    /// - Throws: ``RequestError`` 400 naming what is malformed (including `full`, which version 3 replaced by `max`).
    package init(parsing text: Substring) throws(RequestError) {
        upscale = text.utf8.first == UInt8(ascii: "^")
        let body = upscale ? text.dropFirst() : text
        if body.isBytes("max") {
            form = .max
        } else if body.hasBytePrefix("pct:") {
            guard let percent = IIIFNumber.decimal(body.dropFirst(4)) else {
                throw .badRequest("size \(text) is malformed: expected pct:n with a decimal number")
            }
            form = .percent(percent)
        } else if let parsed = Self.pair(body) {
            form = parsed
        } else {
            let hint = body.isBytes("full") ? " (version 3 names the full size max)" : ""
            throw .badRequest("size \(text) is malformed: expected max, w,, ,h, w,h, !w,h or pct:n, optionally after ^\(hint)")
        }
    }

    /// `w,` · `,h` · `w,h` · `!w,h`, or `nil`.
    private static func pair(_ text: Substring) -> Form? {
        let confined = text.utf8.first == UInt8(ascii: "!")
        let body = confined ? text.dropFirst() : text
        guard let comma = body.utf8.firstIndex(of: UInt8(ascii: ",")) else { return nil }
        let parts = (body[..<comma], body[body.utf8.index(after: comma)...])
        let width = IIIFNumber.integer(parts.0)
        let height = IIIFNumber.integer(parts.1)
        switch (width, height, parts.0.isEmpty, parts.1.isEmpty) {
        case (let w?, let h?, _, _): return confined ? .confined(width: w, height: h) : .exact(width: w, height: h)
        case (let w?, nil, _, true) where !confined: return .width(w)
        case (nil, let h?, true, _) where !confined: return .height(h)
        default: return nil
        }
    }
}
