import Archive
import Glibc
import HTTPCore
import TileGeometry

extension ImageCatalog {
    /// An entry for an SZI (``DirectoryWalker/Found/Kind/archive``): its central directory read and checked once into
    /// ``ArchiveTiles``, its descriptor the archive's own `.dzi` bytes, its version the file's identity. The archive is
    /// closed again; tile requests reopen it through ``storedFiles``.
    ///
    /// - Throws: ``CatalogError``, permanent (until the file changes) for a damaged archive, transient when the
    ///   process is out of descriptors or memory.
    package func loadArchive(_ found: DirectoryWalker.Found, signature: FileSignature, id: Int) throws -> CatalogImage {
        guard let real = PathContainment.realPath(found.path), PathContainment.isInside(real, root: root) else {
            throw CatalogError(message: "it resolves outside the served folder", permanent: true)
        }
        let tiles: ArchiveTiles
        do {
            tiles = try ArchiveTiles(path: real, image: id, files: storedFiles)
        } catch {
            let prefix = real + ": "
            let message = error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message
            let transient = error.code.map { [EMFILE, ENFILE, ENOMEM, EAGAIN].contains($0) } ?? false
            throw CatalogError(message: message, permanent: !transient)
        }
        let file = LoadedFile(
            bytes: tiles.index.descriptorBytes,
            etag: "\"\(String(signature.size, radix: 16))-\(String(signature.seconds, radix: 16)).\(String(signature.nanoseconds, radix: 16))-dzi\"")
        return CatalogImage(
            id: id, name: found.name, descriptor: tiles.index.descriptor, root: root, source: tiles, descriptorFile: file,
            signature: signature, recorded: recordedProperties(archive: tiles.index, image: found.name),
            keptAssociated: tiles.index.associated.keys.sorted())
    }
}
