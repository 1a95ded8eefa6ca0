import ArgumentParser
import Foundation
import ImageCodecs

/// Options shared by every command that decodes images.
struct DecodingOptions: ParsableArguments {
    @Flag(help: "Turn recoverable decoder complaints (e.g. 'Corrupt JPEG data') into warnings instead of errors.")
    var lenient = false

    @Option(help: "Refuse images whose declared width × height exceeds this many pixels.")
    var maxPixels: Int = 1 << 34

    func validate() throws {
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1") }
    }

    /// The decoder options these flags ask for; warnings go to standard error, one line each.
    func decodeOptions() -> DecodeOptions {
        var options = DecodeOptions()
        options.maxPixels = maxPixels
        options.lenient = lenient
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
