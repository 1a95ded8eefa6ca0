extension Viewport {
    /// Creates a viewport from named text values, e.g. the query of `GET /api/visible?x=…&y=…`.
    ///
    /// `value(name)` returns the text given for `name`, or `nil` when absent. Required: `x`, `y`, `width`, `height`,
    /// `zoomScale` (``GeometryInput`` decimals); optional: `contentScale` (decimal, default 1), `prefetch`
    /// (``GeometryInput`` integer, default 0).
    ///
    /// - Throws: ``GeometryError`` naming the first parameter that is missing, not a number, or out of range.
    public init<Text: StringProtocol>(parameters value: (String) -> Text?) throws(GeometryError) {
        func required(_ name: String) throws(GeometryError) -> Double {
            guard let text = value(name) else {
                throw GeometryError(parameter: name, message: "\(name) is required")
            }
            return try GeometryInput.decimal(text, parameter: name)
        }
        let x = try required("x")
        let y = try required("y")
        let width = try required("width")
        let height = try required("height")
        let zoomScale = try required("zoomScale")
        let contentScale = try value("contentScale").map { (text) throws(GeometryError) in
            try GeometryInput.decimal(text, parameter: "contentScale")
        }
        let prefetch = try value("prefetch").map { (text) throws(GeometryError) in
            try GeometryInput.integer(text, parameter: "prefetch")
        }
        try self.init(
            x: x, y: y, width: width, height: height, zoomScale: zoomScale, contentScale: contentScale ?? 1, prefetch: prefetch ?? 0)
    }
}
