/// A pyramid file — a TIFF read directly (``TIFFPyramid``) or a slide read through OpenSlide (``Slide``) — could not be
/// opened, or a part of it could not be read.
///
/// `description` is one line: `"<path>: <reason>"`, e.g. `"bad.svs: Bogus marker length"` or
/// `"slide.svs: tile (3, 1) of level 0 lies past the end of the file (bytes 73270 + 3695 of 72270)"`.
public struct PyramidFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, for callers that react differently (skip the file, 404, 500, try again later).
    ///
    /// A struct with static members rather than an enum, so kinds can be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case notPyramid, notASlide, unsupported, damaged, changed, unreadable, invalidArgument
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A valid TIFF that is not a tiled pyramid: striped, a single resolution, or levels that do not shrink.
        /// Serve it some other way (`tiler slice`); worth a debug line, not a warning.
        public static let notPyramid = Kind(.notPyramid)
        /// A file OpenSlide recognises no format in.
        public static let notASlide = Kind(.notASlide)
        /// A pyramid Tiler cannot decode (16-bit samples, JPEG 2000, separate planes, CMYK, …); the reason says which.
        public static let unsupported = Kind(.unsupported)
        /// The file is damaged: truncated, an IFD loop, a tile past the end of the file, a TileByteCounts of 0 or absurd,
        /// a corrupt JPEG tile (a TIFF that changed since it was opened says so too); for a slide, OpenSlide recognises
        /// the file but cannot open or read it (a companion file missing, an encoding it does not decode) — its error
        /// state.
        public static let damaged = Kind(.damaged)
        /// A slide's file is gone, not a regular file, or changed since it was opened.
        public static let changed = Kind(.changed)
        /// The operating system refused: no such file, permission denied, a read error, out of memory.
        public static let unreadable = Kind(.unreadable)
        /// The caller asked for something that does not exist (a level, tile, region or associated image out of range
        /// or too large, pass-through of a level that is not JPEG, a buffer too small).
        public static let invalidArgument = Kind(.invalidArgument)

        /// The kind's name, e.g. `"damaged"`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The file concerned, as the caller named it.
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

/// What ``Slide`` (OpenSlide) throws: kinds `.notASlide`, `.damaged`, `.changed`, `.invalidArgument`.
public typealias SlideError = PyramidFileError

/// What ``TIFFPyramid`` throws: kinds `.notPyramid`, `.unsupported`, `.damaged`, `.unreadable`, `.invalidArgument`.
public typealias TIFFPyramidError = PyramidFileError
