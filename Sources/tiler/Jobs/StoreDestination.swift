import ArgumentParser
import Foundation
import NIOCore
import ObjectStore
import Slicing

/// `-o s3://BUCKET/PREFIX/NAME.szi` (or `.tif`, `.tiff`): one pyramid file published to an S3 bucket.
///
/// The slice is written to a private staging folder in the system temporary folder (`TMPDIR`), then sent with a
/// multipart upload: parts of 16 MiB or more read from the staged file, up to four in flight. The object appears only
/// when the upload completes; a failure or an interrupt aborts it, so the key holds the whole new file or what it held
/// before.
struct StoreDestination {
    /// The bucket and the prefix the key is under.
    let location: S3Location
    /// The object's key under ``location``'s prefix: `NAME.szi`, `NAME.tif` or `NAME.tiff`.
    let key: String
    /// What the key's extension asks for.
    let container: PyramidContainer

    /// `s3://bucket/prefix/NAME.szi`.
    var url: String { location.description + key }

    /// The pyramid's name: the key without its extension.
    var name: String { (key as NSString).deletingPathExtension }

    /// The key's extension with its dot, as given (`.tiff`, `.TIF`).
    var fileExtension: String { "." + (key as NSString).pathExtension }

    /// Whether `-o` names an object store rather than a local path.
    static func names(_ output: String) -> Bool {
        output.lowercased().hasPrefix("s3://")
    }

    /// Parses `s3://BUCKET/PREFIX/NAME.szi`.
    ///
    /// - Throws: `CommandFailure`, one line: not a bucket, no object named, or a key that is not one file's.
    init(parsing output: String) throws {
        let rest = output.dropFirst(5)
        let slash = rest.lastIndex(of: "/")
        let rootText = "s3://" + (slash.map { rest[..<$0] } ?? rest)
        let location: S3Location
        do {
            location = try S3Location(parsing: rootText)
        } catch {
            throw CommandFailure("-o \(output): \(error)")
        }
        let key = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        guard let container = PyramidContainer.implied(byOutput: key) else {
            let what = key.isEmpty ? "names a folder" : "names '\(key)'"
            throw CommandFailure(
                "-o \(output) \(what): a bucket takes one file, s3://BUCKET/PREFIX/NAME.szi or NAME.tif (a folder pyramid cannot go to a store yet)")
        }
        self.location = location
        self.key = key
        self.container = container
        do {
            try SliceRequest.validate(name: name, source: "-o \(output)")
        } catch let error as ValidationError {
            throw CommandFailure(error.message)
        }
    }
}
