/// Why a server could not start: a bad configuration or an unusable ROOT. The message is one line, for users.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `ROOT /data is not a folder`.
    public let message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
