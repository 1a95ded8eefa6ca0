/// Why a file could not be served: a typed error with a one-line message (paths are not revealed to clients).
package struct FileLoadError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for choosing the status.
    package enum Kind: Sendable {
        /// No such file, or not a regular file: 404.
        case notFound
        /// The file's real path is outside the folder it must be in (a symlink out): 404, like a missing file.
        case outsideRoot
        /// Larger than allowed, or changed while being read, or an I/O error: 500.
        case unreadable
    }

    /// What went wrong.
    package let kind: Kind
    /// A one-line message.
    package let message: String

    package var description: String { message }
}
