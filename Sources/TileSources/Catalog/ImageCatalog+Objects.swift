import Archive
import HTTPCore
import ImageCodecs
import ObjectSources
import ObjectStore
import TileGeometry

extension ImageCatalog {
    /// Brings the object-store roots' images in `next` up to date with their listings: an SZI, a pyramidal TIFF, or a
    /// `.dzi` whose `NAME_files/` holds objects, listed for the first time, or with a new ETag or size, is opened (a
    /// replaced object is a new version, its old entry removed); one no longer listed is removed. A name ROOT already
    /// serves stays ROOT's; of two roots listing one name, the first given wins. A root whose listing failed keeps its
    /// images; a pyramid the store failed to give is tried again at the next scan (its previous version, if any, still
    /// listed meanwhile), a damaged one is refused until it changes.
    func settleObjects(into next: inout [Substring: CatalogImage], changes: inout CatalogChanges, state: inout ScanState) {
        guard !objectRoots.isEmpty else { return }
        var wanted: [String: (root: Int, info: ObjectInfo)] = [:]
        for (index, root) in objectRoots.enumerated() {
            guard let listing = root.list() else {
                for (name, entry) in state.objects where entry.root == index { wanted[name] = (index, entry.info) }
                continue
            }
            for info in listing.objects {
                guard let (name, kind) = ObjectCatalog.pyramid(info.key), wanted[name] == nil else { continue }
                // A descriptor without tiles yet (a folder still being uploaded) is looked at again next time.
                if kind == .folder && !listing.tileFolders.contains(name + "_files/") { continue }
                // A local image of that name: ROOT's, unless it is this root's own entry.
                if let held = next[name[...]], state.objects[name]?.image !== held { continue }
                wanted[name] = (index, info)
            }
        }
        for (name, entry) in state.objects where wanted[name] == nil {
            state.objects[name] = nil
            if let image = entry.image, next[name[...]] === image {
                next[name[...]] = nil
                changes.removed.append(image)
            }
        }
        let stale = wanted.filter { name, want in
            guard let entry = state.objects[name] else { return true }
            return entry.root != want.root || entry.info != want.info
        }
        for root in objectRoots.indices {
            let toOpen = stale.filter { $0.value.root == root }.sorted { $0.key < $1.key }
            let results = objectRoots[root].open(toOpen.map(\.value.info))
            for ((name, want), result) in zip(toOpen, results) {
                switch result {
                case .success(let opened):
                    guard let image = objectImage(opened, name: name, root: objectRoots[root], id: state.nextID) else {
                        state.objects[name] = ObjectEntry(root: root, info: want.info, image: nil)
                        continue
                    }
                    state.nextID += 1
                    if let old = state.objects[name]?.image, next[name[...]] === old { changes.removed.append(old) }
                    state.objects[name] = ObjectEntry(root: root, info: want.info, image: image)
                    next[name[...]] = image
                    changes.added.append(image)
                case .failure(let error) where ObjectCatalog.isStoreFailure(error):
                    logger.warning("Not serving \(name) yet: \(error.message); trying again at the next scan")
                case .failure(let error):
                    // A TIFF that is simply no pyramid (striped, one resolution) is no error: `tiler slice` is for it.
                    let quiet = (error.underlying as? TIFFPyramidError)?.kind == .notPyramid
                    logger.log(level: quiet ? .debug : .warning, "Not serving \(objectRoots[root].reader.name)\(want.info.key): \(error.message)")
                    if let old = state.objects[name]?.image, next[name[...]] === old {
                        next[name[...]] = nil
                        changes.removed.append(old)
                    }
                    state.objects[name] = ObjectEntry(root: root, info: want.info, image: nil)
                }
            }
        }
    }

    /// The entry for the pyramid `opened` of `root`, its version its object's (the SZI's, the TIFF's or the
    /// descriptor's) ETag and size; nil, with one warning, for a descriptor that does not parse.
    private func objectImage(_ opened: ObjectCatalog.Opened, name: String, root: ObjectCatalog, id: Int) -> CatalogImage? {
        switch opened {
        case .archive(let archive):
            let descriptorFile = LoadedFile(bytes: archive.index.descriptorBytes, etag: "\"\(archive.source.info.version)-dzi\"")
            return CatalogImage(
                id: id, name: name, descriptor: archive.index.descriptor, root: root.name,
                source: ObjectArchiveTiles(archive: archive, maxTileBytes: root.maxTileBytes), descriptorFile: descriptorFile,
                signature: Self.signature(of: archive.source.info), recorded: recordedProperties(archive: archive.index, image: name),
                keptAssociated: archive.index.associated.keys.sorted())
        case .tiff(let tiff):
            let pyramid = ObjectStoredPyramid(tiff: tiff, maxTileBytes: root.maxTileBytes)
            guard let (tiles, descriptor) = StoredTiles.serving(pyramid) else { return nil }
            let info = tiff.source.info
            return CatalogImage(
                id: id, name: name, descriptor: descriptor, root: root.name, source: tiles,
                descriptorFile: LoadedFile(bytes: Array(descriptor.xml.utf8), etag: "\"\(info.version)-dzi\""), signature: Self.signature(of: info),
                recorded: pyramid.description.recorded, keptAssociated: pyramid.description.keptAssociated)
        case .folder(let bytes, let info):
            let descriptor: DZIDescriptor
            do {
                descriptor = try DZIDescriptor(xml: String(decoding: bytes, as: UTF8.self))
            } catch {
                logger.warning("Not serving \(root.reader.name)\(info.key): \(error.message)")
                return nil
            }
            let tiles = ObjectFolderTiles(reader: root.reader, folder: name + "_files/", format: descriptor.format, maxTileBytes: root.maxTileBytes)
            return CatalogImage(
                id: id, name: name, descriptor: descriptor, root: root.name, source: tiles,
                descriptorFile: LoadedFile(bytes: bytes, etag: "\"\(info.version)-dzi\""), signature: Self.signature(of: info))
        }
    }

    /// An object's identity as a file's would be: its size and time, and its ETag hashed into the inode's place.
    private static func signature(of info: ObjectInfo) -> FileSignature {
        let seconds = Int(info.lastModified?.timeIntervalSince1970 ?? 0)
        return FileSignature(size: info.size, seconds: seconds, nanoseconds: 0, inode: FNV1a.hash(info.etag.utf8), device: 0)
    }
}

/// An object-store image the catalog knows of: where it was listed, the version, and its entry (nil: refused until
/// the object changes).
package struct ObjectEntry {
    package let root: Int
    package let info: ObjectInfo
    package let image: CatalogImage?
}
