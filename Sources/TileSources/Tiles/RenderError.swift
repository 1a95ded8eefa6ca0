/// Why a IIIF image could not be rendered from tiles that were read: a damaged or mis-sized tile (500).
package struct RenderError: Error, Sendable, CustomStringConvertible {
    /// A one-line message.
    package let message: String

    /// The error `message` names.
    package init(message: String) {
        self.message = message
    }

    package var description: String { message }
}
