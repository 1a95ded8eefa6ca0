import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under the system temp directory, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tiler-codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    ///
    /// Plain POSIX calls: Foundation's `Data.write` fsyncs every file, which costs milliseconds. An
    /// existing file is unlinked first, since rewriting through O_TRUNC makes ext4 flush on close.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        unlink(target)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FixtureError(message: "cannot create \(target)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw FixtureError(message: "cannot write \(target)") }
        return target
    }

    /// The bytes of `name`.
    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }
}
