/// Bad input to TileGeometry: a one-line, specific message naming the offending parameter.
///
/// Thrown by the validating entry points (``Pyramid/validated(width:height:tileSize:overlap:)``,
/// ``Viewport/init(x:y:width:height:zoomScale:contentScale:prefetch:)``, ``DZIDescriptor/init(xml:)``,
/// ``GeometryInput``, ``Pyramid/visibleTiles(in:tileLimit:)``). Never thrown for programmer errors; those are
/// preconditions.
public struct GeometryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the offending input, as the caller spelled it: a query parameter (`zoomScale`), a pyramid
    /// property (`tileSize`) or a DZI attribute (`TileSize`).
    public let parameter: String
    /// A one-line message that starts with ``parameter``, e.g. `zoomScale must be a finite number > 0 (got -1)`.
    public let message: String

    /// Creates an error about `parameter`; `message` should name it.
    public init(parameter: String, message: String) {
        self.parameter = parameter
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
