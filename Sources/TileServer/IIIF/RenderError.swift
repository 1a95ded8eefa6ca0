/// Why a IIIF image could not be rendered from tiles that were read: a damaged or mis-sized tile (500).
struct RenderError: Error, Sendable, CustomStringConvertible {
    /// A one-line message.
    let message: String

    var description: String { message }
}
