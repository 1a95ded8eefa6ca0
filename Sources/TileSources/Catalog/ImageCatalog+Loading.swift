import HTTPCore
import ImageCodecs
import NIOCore
import Slicing
import TileGeometry

extension ImageCatalog {
    /// What a found `.dzi` comes to.
    package enum Outcome: Equatable {
        /// Served as this entry.
        case serve(CatalogImage)
        /// Not yet (no tiles folder, unreadable for now): looked at again at every scan.
        case notYet
        /// Unusable until it changes (reported once): looked at again when its folder changes.
        case rejected

        /// The entry to serve, if any.
        package var image: CatalogImage? {
            if case .serve(let image) = self { image } else { nil }
        }

        package static func == (left: Outcome, right: Outcome) -> Bool {
            switch (left, right) {
            case (.serve(let a), .serve(let b)): a === b
            case (.notYet, .notYet), (.rejected, .rejected): true
            default: false
            }
        }
    }

    /// The entry for `found`: the previous one if its `.dzi` is unchanged and its tiles folder still there, else a
    /// fresh one, or why there is none.
    package func resolve(_ found: DirectoryWalker.Found, previous: CatalogImage?, state: inout ScanState) -> Outcome {
        guard let signature = FileSignature(path: found.path) else { return .notYet }
        if let previous, previous.signature == signature, previous.source.isIntact {
            return .serve(previous)
        }
        // A multi-file slide refused (a companion missing, say) is tried again once a companion's folder changes.
        let rejection = Rejection(signature: signature, companions: found.kind.hasCompanions ? SlideCompanions.stamp(keyFile: found.path) : [])
        if state.rejected[found.path] == rejection { return .rejected }
        do {
            let image = try found.kind.load(self, found, signature, state.nextID)
            state.nextID += 1
            return .serve(image)
        } catch let error as CatalogError {
            guard error.permanent else { return .notYet }
            state.rejected[found.path] = rejection
            let (level, line) = found.kind.refusal(found, error)
            logger.log(level: level, "\(line)")
            return .rejected
        } catch {
            return .notYet
        }
    }

    func loadDescriptor(_ found: DirectoryWalker.Found, signature: FileSignature, id: Int) throws -> CatalogImage {
        guard let real = PathContainment.realPath(found.path), PathContainment.isInside(real, root: root) else {
            throw CatalogError(message: "it resolves outside the served folder", permanent: true)
        }
        let file: LoadedFile
        do {
            file = try FileLoader.load(real, inside: root, maxBytes: 1 << 20)
        } catch {
            throw CatalogError(message: error.message, permanent: error.kind != .notFound)
        }
        let xml = String(decoding: file.body, as: UTF8.self)
        let descriptor: DZIDescriptor
        do {
            descriptor = try DZIDescriptor(xml: xml)
        } catch {
            throw CatalogError(message: error.message, permanent: true)
        }
        let filesPath = String(found.path.dropLast(4)) + "_files"
        guard let files = PathContainment.realPath(filesPath), PathContainment.isInside(files, root: root), FileSignature.isDirectory(files) else {
            // Not yet (a slice still being published) or a tiles folder pointing out of ROOT: look again next scan.
            throw CatalogError(message: "no tiles folder", permanent: false)
        }
        // Only a sliced slide keeps associated images, and it records its properties too: a pyramid that records none
        // costs no listing of an `associated` folder.
        let recorded = recordedProperties(files: files, image: found.name)
        return CatalogImage(
            id: id, name: found.name, descriptor: descriptor, root: root, filesDirectory: files, descriptorFile: file, signature: signature,
            directories: directories, realName: Self.realName(real, root: root), tilesRealName: Self.tilesRealName(files, root: root),
            recorded: recorded, keptAssociated: recorded == nil ? [] : AssociatedImage.kept(inFiles: files))
    }
}

extension ImageCatalog {
    /// An entry for a file that holds a whole pyramid (``DirectoryWalker/Found/Kind/storedPyramid``), opened with
    /// ``StoredPyramids/open(path:)`` and closed again (``StoredPyramidFile``): its Deep Zoom descriptor is made
    /// (``StoredTiles/serving(_:)``), its version follows the file's identity.
    func loadStored(_ found: DirectoryWalker.Found, signature: FileSignature, id: Int) throws -> CatalogImage {
        guard let real = PathContainment.realPath(found.path), PathContainment.isInside(real, root: root) else {
            throw CatalogError(message: "it resolves outside the served folder", permanent: true)
        }
        let pyramid: any StoredPyramid
        do {
            // A TIFF is read for its levels, then closed: tiles reopen it through the shared cache of open files.
            let opened = try StoredPyramids.open(path: real)
            pyramid = (opened as? TIFFPyramid).map { StoredPyramidFile(image: id, path: real, describing: $0, cache: storedFiles) } ?? opened
        } catch {
            throw CatalogError(message: error.message, permanent: !error.isTransient, quiet: error.isNotAPyramid)
        }
        if let slide = pyramid as? SlidePyramid {
            // OpenSlide opens the files a slide names wherever they lead: none may lie outside ROOT.
            guard !slide.companions.namesOtherFolders else {
                throw CatalogError(message: "it names files by paths, which may lead outside the served folder", permanent: true)
            }
            guard slide.companions.areInside(root: root) else {
                throw CatalogError(message: "a file it is read from resolves outside the served folder", permanent: true)
            }
        }
        guard let (tiles, descriptor) = StoredTiles.serving(pyramid) else { throw CatalogError(message: "it has no levels", permanent: true) }
        let xml = Array(descriptor.xml.utf8)
        let file = LoadedFile(
            bytes: xml,
            etag: "\"\(String(signature.size, radix: 16))-\(String(signature.seconds, radix: 16)).\(String(signature.nanoseconds, radix: 16))-dzi\"")
        return CatalogImage(
            id: id, name: found.name, descriptor: descriptor, root: root, source: tiles, descriptorFile: file, signature: signature,
            companions: (pyramid as? SlidePyramid)?.companions.files.map { $0.signature } ?? [], realName: Self.realName(real, root: root),
            recorded: (pyramid as? StoredPyramidFile)?.recorded,
            keptAssociated: (pyramid as? StoredPyramidFile)?.keptAssociated ?? [])
    }

    /// The name of the image whose tiles folder is at real path `files` inside `root`: relative to `root`, without
    /// `_files`.
    package static func tilesRealName(_ files: String, root: String) -> String {
        let relative = files.hasPrefix(root + "/") ? files.dropFirst(root.count + 1) : files[...]
        return String(relative.hasSuffix("_files") ? relative.dropLast(6) : relative)
    }

    /// The name a file at real path `real` inside `root` would be served under: relative to `root`, without its
    /// extension.
    package static func realName(_ real: String, root: String) -> String {
        let relative = real.hasPrefix(root + "/") ? real.dropFirst(root.count + 1) : real[...]
        guard let dot = relative.lastIndex(of: "."), !relative[dot...].contains("/") else { return String(relative) }
        return String(relative[..<dot])
    }
}

/// What scans remember between runs: the walk's state, the next id, the descriptors not ready yet (looked at again
/// every scan), those already reported as unusable (by signature, so a fixed file is looked at again) and the names
/// already reported as refused.
package struct ScanState {
    package var scanner: CatalogScanner
    package var nextID = 1
    package var pending: [String: DirectoryWalker.Found] = [:]
    package var rejected: [String: Rejection] = [:]
    package var counts = ScanCounts()
    /// Refused names already reported, by their bytes (canonically equal names are different entries here).
    package var refusedReported: Set<[UInt8]> = []
    /// The object-store roots' images, by name (``ImageCatalog/settleObjects(into:changes:state:)``).
    package var objects: [String: ObjectEntry] = [:]
    /// When the object-store roots were last listed.
    package var objectsListed: NIODeadline?
}

/// What a refused file was refused as: its identity and, for a slide of several files, the identities of the files
/// beside it that it may be read from (a VMS's JPEGs, a MIRAX folder's data files): restoring one of those is a change.
package struct Rejection: Equatable {
    package let signature: FileSignature
    package let companions: [FileSignature]
}

/// Why a found pyramid is not served; `permanent` ones are logged once and skipped until the file changes, at debug
/// level when `quiet` (a file that is simply not a pyramid).
package struct CatalogError: Error {
    package let message: String
    package let permanent: Bool
    package var quiet = false
}
