import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder under the system's temporary folder, removed with everything in it when the value is released (or
/// by ``remove()``). The one temporary-folder helper of every test target.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The folder's path (no trailing `/`).
    public let path: String

    /// Creates an empty folder named `tiler-{prefix}-XXXXXX` (`mkdtemp`: unique, mode 0700).
    ///
    /// - Throws: ``TemporaryDirectoryError`` when it cannot be created.
    public init(prefix: String = "test") throws {
        var template = Array((NSTemporaryDirectory() + "/tiler-\(prefix)-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw TemporaryDirectoryError(message: "cannot create a temporary folder") }
        path = (String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self) as NSString).standardizingPath
    }

    deinit { remove() }

    /// Removes the folder and everything in it now.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The folder as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    ///
    /// Plain POSIX calls: Foundation's `Data.write` fsyncs every file, which costs milliseconds. An existing file is
    /// unlinked first, since rewriting through O_TRUNC makes ext4 flush on close.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = file(name)
        unlink(target)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TemporaryDirectoryError(message: "cannot create \(target)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TemporaryDirectoryError(message: "cannot write \(target)") }
        return target
    }

    /// The bytes of `name`.
    public func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }
}

/// A temporary folder or file that could not be made.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    /// What failed, naming the path.
    public var message: String
    /// The message.
    public var description: String { "temporary folder: \(message)" }
}
