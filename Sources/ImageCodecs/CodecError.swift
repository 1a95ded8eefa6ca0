/// An image could not be read or written.
///
/// `description` is one line naming the file, what is wrong (the library's own message where there is
/// one) and, when decoding had started, the row reached: `"cut.jpg: Premature end of JPEG file (at row 212 of 480)"`.
public struct CodecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, for callers that react differently (e.g. 404 vs 500).
    ///
    /// A struct with static members rather than an enum, so kinds can be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case notFound, permissionDenied, isDirectory, notAFile, empty, unsupportedFormat, truncated, corrupt
            case tooLarge, outOfMemory, io, invalidArgument, badColourProfile
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file does not exist.
        public static let notFound = Kind(.notFound)
        /// The file exists but may not be read.
        public static let permissionDenied = Kind(.permissionDenied)
        /// The path names a directory.
        public static let isDirectory = Kind(.isDirectory)
        /// The path names a named pipe, a socket or a character device: nothing a decoder can seek in (and opening a
        /// pipe would wait for a writer).
        public static let notAFile = Kind(.notAFile)
        /// The file has no bytes.
        public static let empty = Kind(.empty)
        /// The bytes are not a PNG, JPEG, TIFF or WebP file.
        public static let unsupportedFormat = Kind(.unsupportedFormat)
        /// The file ends before the image does.
        public static let truncated = Kind(.truncated)
        /// The data is malformed or damaged (including a declared size of zero).
        public static let corrupt = Kind(.corrupt)
        /// The declared size is over the configured pixel limit.
        public static let tooLarge = Kind(.tooLarge)
        /// An allocation failed.
        public static let outOfMemory = Kind(.outOfMemory)
        /// Reading or writing failed at the operating-system level.
        public static let io = Kind(.io)
        /// A parameter was out of range (e.g. JPEG quality 0).
        public static let invalidArgument = Kind(.invalidArgument)
        /// The embedded colour profile cannot be used and ``ColourPolicy/strict`` was asked for.
        public static let badColourProfile = Kind(.badColourProfile)

        /// The kind's name, e.g. `"truncated"`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The file concerned, as the caller named it; nil for encoding.
    public var path: String?
    /// What is wrong, without the path or row.
    public var message: String
    /// The image row being decoded when the error happened, if decoding had started.
    public var row: Int?
    /// The image height, for the "(at row R of H)" suffix.
    public var height: Int?

    /// Creates an error; `description` composes the parts.
    public init(kind: Kind, path: String? = nil, message: String, row: Int? = nil, height: Int? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.row = row
        self.height = height
    }

    /// One line: `"<path>: <message>[ (at row R of H)]"`.
    public var description: String {
        var text = path.map { "\($0): \(message)" } ?? message
        if let row {
            text += height.map { " (at row \(row) of \($0))" } ?? " (at row \(row))"
        }
        return text
    }
}
