import ArgumentParser
import Foundation
import ImageCodecs

/// Options shared by every command that decodes images.
struct DecodingOptions: ParsableArguments {
    @Flag(help: "Turn recoverable decoder complaints (e.g. 'Corrupt JPEG data') into warnings instead of errors.")
    var lenient = false

    @Option(help: "Refuse images whose declared width × height exceeds this many pixels.")
    var maxPixels: Int = 1 << 34

    @Option(help: "The page of a multi-page TIFF to read, from 0 (default: the first full-resolution page).")
    var page: Int?

    func validate() throws {
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more") }
    }

    /// The decoder options these flags ask for; warnings go to standard error, one line each.
    func decodeOptions() -> DecodeOptions {
        var options = DecodeOptions()
        options.maxPixels = maxPixels
        options.lenient = lenient
        options.page = page
        options.onWarning = { message in StandardError.print("warning: \(message)") }
        return options
    }
}

/// Writes lines to standard error.
enum StandardError {
    /// Writes `line` and a newline to standard error, unbuffered.
    static func print(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
