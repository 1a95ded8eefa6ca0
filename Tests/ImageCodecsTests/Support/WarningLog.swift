import ImageCodecs
import Synchronization
import Testing

/// Collects the warnings a lenient decode delivers.
final class WarningLog: Sendable {
    private let storage = Mutex<[String]>([])

    var lines: [String] { storage.withLock { $0 } }

    /// Options that decode leniently and record every warning here.
    var lenientOptions: DecodeOptions {
        DecodeOptions(lenient: true, onWarning: { line in self.storage.withLock { $0.append(line) } })
    }
}

/// The `CodecError` decoding `path` throws, or nil if it decodes.
func decodeError(_ path: String, options: DecodeOptions = .init()) -> CodecError? {
    do {
        _ = try ImageDecoder.decode(path: path, options: options)
        return nil
    } catch let error as CodecError {
        return error
    } catch {
        Issue.record("threw something other than CodecError: \(error)")
        return nil
    }
}
