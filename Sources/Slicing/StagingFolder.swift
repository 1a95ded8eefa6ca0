import Foundation
import TileGeometry

/// The hidden folder a pyramid is built in, `DIR/.NAME.tiler-XXXXXX/` holding `NAME.dzi` and `NAME_files/`, and
/// the moves that publish it.
///
/// A server lists a pyramid only once its `.dzi` exists and skips dot-folders, so nothing half-built is ever visible:
/// ``publish()`` moves `NAME_files` into place first and `NAME.dzi` last. With `force`, the old pair is first moved
/// into the staging folder (`.dzi` first), and deleted with it once the new pair is in place; if a move fails the old
/// pair is moved back. ``discard()`` deletes the staging folder and everything in it.
///
/// The folder holds an owner file from the start (``StagingOwner``: PID, start time, host), so that when a slice is
/// killed before it can discard its folder, a later slice's ``StagingSweep`` can tell the folder is abandoned.
struct StagingFolder {
    /// The destination folder.
    let directory: String
    /// The pyramid name: the `.dzi` is `NAME.dzi`, the tiles `NAME_files/`.
    let name: String
    /// The staging folder's path.
    let path: String
    /// What is built: a `.dzi` and its `_files` folder, or one `.szi`.
    var container: PyramidContainer = .folder
    /// The one file's extension with its dot, as the destination names it (nil: the container's own).
    var fileExtension: String? = nil

    /// The one file's extension in use.
    private var archiveExtension: String { fileExtension ?? container.fileExtension ?? "" }

    /// The staged descriptor.
    var dziPath: String { "\(path)/\(name).dzi" }
    /// The staged tile folder.
    var filesPath: String { "\(path)/\(name)_files" }
    /// Where the descriptor goes.
    var destinationDZI: String { "\(directory)/\(name).dzi" }
    /// Where the tile folder goes.
    var destinationFiles: String { "\(directory)/\(name)_files" }
    /// The staged one-file pyramid (`NAME.szi` or `NAME.tif`).
    var archivePath: String { "\(path)/\(name)\(archiveExtension)" }
    /// Where the one-file pyramid goes.
    var destinationArchive: String { "\(directory)/\(name)\(archiveExtension)" }
    /// What publishing puts in place: `NAME.dzi` and `NAME_files`, or the one file.
    var destinations: [String] { container == .folder ? [destinationDZI, destinationFiles] : [destinationArchive] }

    /// Checks the destination and creates the staging folder with its owner file.
    ///
    /// - Throws: ``SliceError/Reason/invalidOptions`` for a bad name, ``SliceError/Reason/destinationExists`` when
    ///   `NAME.dzi` or `NAME_files` (`NAME.szi` or `NAME.tif` for one file) exists and `force` is off,
    ///   ``SliceError/Reason/destination`` when `directory` is missing, not a folder, or not writable.
    static func create(
        directory given: String, name: String, force: Bool, container: PyramidContainer = .folder, fileExtension: String? = nil
    ) throws(SliceError) -> StagingFolder {
        var directory = given
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.utf8.contains(0) else {
            throw SliceError(.invalidOptions, "pyramid name \"\(name)\" must be a non-empty file name without \"/\"")
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw SliceError.system(.destination, "cannot use output folder \(directory)", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SliceError(.destination, "output folder \(directory) is not a folder") }
        let probe = StagingFolder(directory: directory, name: name, path: "", container: container, fileExtension: fileExtension)
        if !force {
            for existing in probe.destinations where exists(existing) {
                throw SliceError(.destinationExists, "\(existing) already exists (use --force to replace it)")
            }
        }
        var template = Array("\(directory)/.\(name).tiler-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw SliceError.system(.destination, "cannot create a temporary folder in \(directory)", errno: errno)
        }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let staging = StagingFolder(directory: directory, name: name, path: path, container: container, fileExtension: fileExtension)
        if let code = TileWriter.writeFile(name: "\(path)/\(StagingOwner.fileName)", bytes: Array(StagingOwner.current().line.utf8)) {
            staging.discard()
            throw SliceError.system(.destination, "cannot write \(path)/\(StagingOwner.fileName)", errno: code)
        }
        return staging
    }

    /// Writes the staged `NAME.dzi`.
    /// Writes `NAME_files/vips-properties.xml`, as dzsave does.
    func writeProperties(_ properties: PyramidProperties) throws(SliceError) {
        let path = "\(filesPath)/vips-properties.xml"
        if let code = TileWriter.writeFile(name: path, bytes: Array(properties.vipsXML().utf8)) {
            throw SliceError.system(.write, "cannot write \(path)", errno: code)
        }
    }

    /// Writes `NAME_files/associated/KIND.jpg` for each of `images`.
    func writeAssociated(_ images: [AssociatedImage]) throws(SliceError) {
        let folder = "\(filesPath)/associated"
        guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw SliceError.system(.write, "cannot create \(folder)", errno: errno) }
        for image in images {
            let path = "\(folder)/\(image.kind).jpg"
            if let code = TileWriter.writeFile(name: path, bytes: image.jpeg) {
                throw SliceError.system(.write, "cannot write \(path)", errno: code)
            }
        }
    }

    func writeDescriptor(_ descriptor: DZIDescriptor) throws(SliceError) {
        if let code = TileWriter.writeFile(name: dziPath, bytes: Array(descriptor.xml.utf8)) {
            throw SliceError.system(.write, "cannot write \(dziPath)", errno: code)
        }
    }

    /// Moves the staged pyramid into place (replacing the old one if `force`) and deletes the staging folder.
    func publish(force: Bool) throws(SliceError) {
        if container != .folder {
            try publishArchive(force: force)
            discard()
            return
        }
        var undo: [(from: String, to: String)] = []
        do throws(SliceError) {
            if force {
                for (old, trash) in [(destinationDZI, "\(path)/old.dzi"), (destinationFiles, "\(path)/old_files")] where Self.exists(old) {
                    try move(old, to: trash)
                    undo.append((trash, old))
                }
            } else if let existing = [destinationDZI, destinationFiles].first(where: Self.exists) {
                throw SliceError(.destinationExists, "\(existing) appeared while slicing; nothing was replaced")
            }
            try move(filesPath, to: destinationFiles)
            undo.append((destinationFiles, filesPath))
            try linkDescriptor()
        } catch {
            for step in undo.reversed() { _ = rename(step.from, step.to) }
            throw error
        }
        discard()
    }

    /// Deletes the staging folder and everything in it, following no link. Errors are ignored: this runs on the way out
    /// of a failure (and a folder left behind is removed by a later slice's ``StagingSweep``).
    func discard() {
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        _ = Self.remove(URL(fileURLWithPath: path).lastPathComponent, in: parent)
        close(parent)
    }

    /// Removes the staging folder `name` of the folder open as `parent`, following no link (``TreeRemoval``). The
    /// owner file goes last, so that a folder only partly removed is still known for a leftover.
    ///
    /// - Returns: nil when it is gone, else the first `errno` met.
    static func remove(_ name: String, in parent: Int32) -> Int32? {
        let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return errno == ENOENT ? nil : errno }
        defer { close(folder) }
        if let code = TreeRemoval.removeContents(of: folder, depth: 1, keeping: StagingOwner.fileName) { return code }
        if unlinkat(folder, StagingOwner.fileName, 0) != 0 && errno != ENOENT { return errno }
        return unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? nil : errno
    }

    /// Whether anything (even a dangling link) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private func move(_ from: String, to: String) throws(SliceError) {
        guard rename(from, to) == 0 else { throw SliceError.system(.destination, "cannot move \(from) to \(to)", errno: errno) }
    }

    /// Puts the one archive file in place: `rename` (which replaces atomically) with `force`, else the same
    /// never-replacing `link` as the descriptor's.
    private func publishArchive(force: Bool) throws(SliceError) {
        if force {
            try move(archivePath, to: destinationArchive)
        } else {
            try linkFile(archivePath, to: destinationArchive)
        }
    }

    /// Publishes the descriptor with `link` + `unlink`, which, unlike `rename`, never replaces an existing file.
    /// File systems without hard links get a checked `rename`.
    private func linkDescriptor() throws(SliceError) {
        try linkFile(dziPath, to: destinationDZI)
    }

    /// Moves file `from` to `to` with `link` + `unlink`, failing if `to` exists.
    private func linkFile(_ from: String, to: String) throws(SliceError) {
        if link(from, to) == 0 {
            unlink(from)
            return
        }
        let code = errno
        if code == EEXIST { throw SliceError(.destinationExists, "\(to) appeared while slicing; nothing was replaced") }
        guard code == EPERM || code == EOPNOTSUPP || code == EMLINK, !Self.exists(to) else {
            throw SliceError.system(.destination, "cannot move \(from) to \(to)", errno: code)
        }
        try move(from, to: to)
    }
}
