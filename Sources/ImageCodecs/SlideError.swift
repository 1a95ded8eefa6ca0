/// A whole-slide image could not be opened or read through OpenSlide.
///
/// `description` is one line: `"<path>: <reason>"`, e.g. `"bad.svs: Bogus marker length"`.
public struct SlideError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Kind: Sendable, Equatable {
        /// OpenSlide does not recognise the file.
        case notASlide
        /// OpenSlide recognises the file but cannot open or read it (damaged, a companion file missing, an encoding it
        /// does not decode): OpenSlide's error state.
        case damaged
        /// The file is gone, not a regular file, or changed since it was opened.
        case changed
        /// The caller asked for something that does not exist (a level, an associated image, a region too large).
        case invalidArgument
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The file concerned.
    public var path: String
    /// What is wrong, one line, without the path.
    public var reason: String

    /// Creates an error; `description` composes the parts.
    public init(kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// One line: `"<path>: <reason>"`.
    public var description: String { "\(path): \(reason)" }
}
