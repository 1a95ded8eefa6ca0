import Glibc
import TileGeometry

/// A Deep Zoom pyramid in one stored ZIP (an SZI, as `tiler slice --container szi` and `vips dzsave --container zip`
/// write it): `TOP/STEM.dzi` and `TOP/STEM_files/LEVEL/COL_ROW.EXT` under one top folder. Opened once per file
/// version into a compact index: where each tile's bytes lie, so they can be sent straight from the archive.
///
/// Everything in ``ZIPDirectory`` is checked, and further: one top folder, exactly one descriptor in it, a valid
/// descriptor, and every tile inside its level's grid. Other entries (libvips' `vips-properties.xml`) are ignored;
/// a tile missing from the archive is simply absent.
///
/// A file is opened with ``init(path:)`` or ``init(fd:label:)``, every local header read; an archive in an object
/// store with ``init(source:label:tailBytes:)`` (in `SZIArchive+Remote.swift`), in one or two reads. Tiles are looked
/// up with ``tile(level:column:row:)`` and read, local header checked, with ``readTile(level:column:row:from:)``
/// (`SZIArchive+Tiles.swift`).
public struct SZIArchive: Sendable {
    /// The archive's name in errors (its path, or its object's URL).
    public let label: String
    /// The archive's size in bytes.
    public let fileSize: UInt64
    /// The top folder's name.
    public let topFolder: String
    /// The descriptor's name without `.dzi` (the tiles are in `STEM_files`).
    public let stem: String
    /// The descriptor's bytes as stored.
    public let descriptorBytes: [UInt8]
    /// The parsed descriptor.
    public let descriptor: DZIDescriptor
    /// Tiles present in the archive.
    public let tileCount: Int
    /// Entries that are neither the descriptor nor a tile, ignored but for the properties.
    public let otherEntries: Int
    /// The bytes of `TOP/STEM_files/vips-properties.xml` (what libvips and `tiler slice` record of a slide), when the
    /// archive has that entry and it is at most ``maxPropertiesBytes``.
    public let propertiesXML: [UInt8]?
    /// The bytes of `TOP/scan-properties.xml` (the SZI format's vendor, objective and microns per pixel), likewise.
    public let scanPropertiesXML: [UInt8]?
    /// Where the associated images a sliced slide keeps lie (`TOP/STEM_files/associated/KIND.jpg`, `tiler slice`'s),
    /// by kind: 1–64 letters, digits, `-` and `_`, at most ``maxAssociatedBytes`` each.
    public let associated: [String: (offset: UInt64, size: Int)]
    /// Where each associated image's local header starts, by kind (see ``associatedRecord(_:)``).
    let associatedHeaders: [String: UInt64]
    /// How the tiles' offsets were found: every local header read, or derived (each then checked when read).
    public let localHeaders: ZIPDirectory.LocalHeaders
    let levelStarts: [Int]
    /// Dense: one slot per cell of the grid (`slots` empty). Sparse: one per tile present, in slot order (`slots`).
    let offsets: [UInt64]
    let sizes: [UInt32]
    /// Each tile's local extra field length: its local header is 30 + name + this many bytes before its offset.
    let extraLengths: [UInt16]
    /// The slots of a sparse index, ascending; empty for a dense one.
    let slots: [Int]
    /// Every tile's name is these bytes (`TOP/STEM_files/`, as tile names were matched), `LEVEL/COLUMN_ROW`, then
    /// ``tileNameSuffix``.
    let tileNamePrefix: [UInt8]
    /// `.FORMAT`.
    let tileNameSuffix: [UInt8]

    /// The longest descriptor read, in bytes.
    public static let maxDescriptorBytes = 1 << 16
    /// The longest properties entry read, in bytes (a larger one is left unread).
    public static let maxPropertiesBytes = 1 << 20
    /// The largest associated image indexed, in bytes (a larger one is left out).
    public static let maxAssociatedBytes = 64 << 20
    /// A slot with no tile.
    static let absent = UInt64.max

    /// Opens and indexes the SZI at `path`.
    public init(path: String) throws(ArchiveError) {
        // O_NONBLOCK: a FIFO named like an archive must not hang the caller in open(2); it is refused below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ArchiveError("\(path): cannot open", errno: errno) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw ArchiveError("\(path): not a regular file") }
        try self.init(fd: fd, label: path)
    }

    /// Indexes the SZI open as `fd`; `label` names it in errors.
    ///
    /// - Throws: ``ArchiveError`` with one line saying what is wrong.
    /// - Complexity: O(n log n) for n entries; about five allocations per archive for the index, none per tile.
    public init(fd: Int32, label: String) throws(ArchiveError) {
        try self.init(source: FileByteSource(fd: fd, label: label), label: label)
    }

    /// Indexes the SZI `source` reads; `label` names it in errors.
    ///
    /// - Parameter localHeaders: as ``ZIPDirectory/init(source:label:localHeaders:)`` takes it. The descriptor and
    ///   properties are read with their local headers, which are checked either way.
    /// - Throws: ``ArchiveError`` with one line saying what is wrong.
    /// - Complexity: O(n log n) for n entries; about five allocations per archive for the index, none per tile.
    public init(source: some ArchiveByteSource, label: String, localHeaders: ZIPDirectory.LocalHeaders = .readEach) throws(ArchiveError) {
        let directory = try ZIPDirectory(source: source, label: label, localHeaders: localHeaders)
        self.label = label
        self.localHeaders = localHeaders
        let top = try Self.topFolder(of: directory, label: label)
        let descriptorIndex = try Self.descriptorEntry(of: directory, top: top, label: label)
        let descriptorName = directory.name(descriptorIndex).dropFirst(top.count + 1)
        stem = String(decoding: descriptorName.dropLast(4), as: UTF8.self)
        topFolder = String(decoding: top, as: UTF8.self)
        guard directory.sizes[descriptorIndex] <= UInt64(Self.maxDescriptorBytes) else { throw ArchiveError("\(label): the descriptor is too large") }
        descriptorBytes = try directory.readEntry(descriptorIndex, from: source, label: label)
        do {
            descriptor = try DZIDescriptor(xml: String(decoding: descriptorBytes, as: UTF8.self))
        } catch {
            throw ArchiveError("\(label): descriptor \(topFolder)/\(stem).dzi: \(error)")
        }
        let pyramid = descriptor.pyramid
        var starts: [Int] = []
        var total = 0
        for level in 0...pyramid.maxLevel {
            starts.append(total)
            let grid = pyramid.grid(level)
            total += grid.columns * grid.rows
        }
        levelStarts = starts
        fileSize = directory.fileSize
        // The descriptor says how large the grid is, and anyone who can drop a file in ROOT writes the descriptor: a
        // grid far larger than the entries (a 2³¹-pixel square over 73 tiles) is indexed sparsely, by the entries.
        let dense = total <= max(4 * directory.count, 1 << 16)
        var offsets = dense ? [UInt64](repeating: Self.absent, count: total) : []
        var sizes = dense ? [UInt32](repeating: 0, count: total) : []
        var extras = dense ? [UInt16](repeating: 0, count: total) : []
        var sparse: [(slot: Int, offset: UInt64, size: UInt32, extra: UInt16)] = []
        let prefix = Array(top) + [UInt8(ascii: "/")] + Array(stem.utf8) + Array("_files/".utf8)
        let suffix = Array(".\(descriptor.format)".utf8)
        var tiles = 0
        var others = 0
        let propertiesName = prefix + Array("vips-properties.xml".utf8)
        let scanName = Array(top) + Array("/scan-properties.xml".utf8)
        var propertiesIndex: Int?
        var scanIndex: Int?
        let associatedPrefix = prefix + Array("associated/".utf8)
        var associated: [String: (offset: UInt64, size: Int)] = [:]
        var associatedHeaders: [String: UInt64] = [:]
        for index in 0..<directory.count where index != descriptorIndex {
            let name = directory.name(index)
            guard name.starts(with: prefix), name.count > prefix.count + suffix.count, name.reversed().starts(with: suffix.reversed()),
                let address = TileName.parse(name.dropFirst(prefix.count).dropLast(suffix.count))
            else {
                if name.elementsEqual(propertiesName) { propertiesIndex = index }
                if name.elementsEqual(scanName) { scanIndex = index }
                if let kind = Self.associatedKind(name, prefix: associatedPrefix), directory.sizes[index] > 0,
                    directory.sizes[index] <= UInt64(Self.maxAssociatedBytes)
                {
                    associated[kind] = (directory.dataOffsets[index], Int(directory.sizes[index]))
                    associatedHeaders[kind] = directory.headerOffsets[index]
                }
                others += 1
                continue
            }
            guard address.level <= pyramid.maxLevel, address.column < pyramid.grid(address.level).columns,
                address.row < pyramid.grid(address.level).rows
            else {
                throw ArchiveError("\(label): tile \(String(decoding: name, as: UTF8.self)) lies outside the pyramid")
            }
            guard directory.sizes[index] > 0, directory.sizes[index] < UInt64(UInt32.max) else {
                throw ArchiveError("\(label): tile \(String(decoding: name, as: UTF8.self)) has \(directory.sizes[index]) bytes")
            }
            let slot = starts[address.level] + address.row * pyramid.grid(address.level).columns + address.column
            if dense {
                guard offsets[slot] == Self.absent else {
                    throw ArchiveError("\(label): tile \(String(decoding: name, as: UTF8.self)) appears twice")
                }
                offsets[slot] = directory.dataOffsets[index]
                sizes[slot] = UInt32(directory.sizes[index])
                extras[slot] = UInt16(directory.localExtraLength(index))
            } else {
                sparse.append((slot, directory.dataOffsets[index], UInt32(directory.sizes[index]), UInt16(directory.localExtraLength(index))))
            }
            tiles += 1
        }
        if !dense {
            sparse.sort { $0.slot < $1.slot }
            if zip(sparse, sparse.dropFirst()).contains(where: { $0.slot == $1.slot }) { throw ArchiveError("\(label): a tile appears twice") }
            offsets = sparse.map(\.offset)
            sizes = sparse.map(\.size)
            extras = sparse.map(\.extra)
        }
        guard tiles > 0 else {
            throw ArchiveError("\(label): no tile named as its descriptor says (\(topFolder)/\(stem)_files/LEVEL/COLUMN_ROW.\(descriptor.format))")
        }
        self.offsets = offsets
        self.sizes = sizes
        extraLengths = extras
        tileNamePrefix = prefix
        tileNameSuffix = suffix
        slots = dense ? [] : sparse.map(\.slot)
        tileCount = tiles
        otherEntries = others
        let small = { (index: Int?) throws(ArchiveError) -> [UInt8]? in
            guard let index, directory.sizes[index] <= UInt64(Self.maxPropertiesBytes) else { return nil }
            return try directory.readEntry(index, from: source, label: label)
        }
        propertiesXML = try small(propertiesIndex)
        scanPropertiesXML = try small(scanIndex)
        self.associated = associated
        self.associatedHeaders = associatedHeaders
    }

    /// `KIND` of an entry named `prefix` + `KIND.jpg`, when it ``isAssociatedKind(_:)``.
    private static func associatedKind(_ name: ArraySlice<UInt8>, prefix: [UInt8]) -> String? {
        let suffix = Array(".jpg".utf8)
        guard name.starts(with: prefix), name.count > prefix.count + suffix.count, name.reversed().starts(with: suffix.reversed()) else { return nil }
        let kind = name.dropFirst(prefix.count).dropLast(suffix.count)
        return isAssociatedKind(kind) ? String(decoding: kind, as: UTF8.self) : nil
    }

    /// Whether `kind` (UTF-8) can name a kept associated image's file: 1–64 ASCII letters, digits, `-` and `_`.
    public static func isAssociatedKind(_ kind: some Collection<UInt8>) -> Bool {
        (1...64).contains(kind.count)
            && kind.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The one top folder every entry is in.
    private static func topFolder(of directory: ZIPDirectory, label: String) throws(ArchiveError) -> ArraySlice<UInt8> {
        guard directory.count > 0 else { throw ArchiveError("\(label): the archive is empty") }
        let first = directory.name(0)
        guard let slash = first.firstIndex(of: UInt8(ascii: "/")) else {
            throw ArchiveError("\(label): entry \(String(decoding: first, as: UTF8.self)) is not inside a top folder")
        }
        let top = first[first.startIndex..<slash]
        for index in 1..<directory.count {
            let name = directory.name(index)
            guard name.count > top.count, name.starts(with: top), name[name.startIndex + top.count] == UInt8(ascii: "/") else {
                throw ArchiveError("\(label): entries lie in more than one top folder (\(String(decoding: name, as: UTF8.self)))")
            }
        }
        return top
    }

    /// The one `TOP/STEM.dzi` entry.
    private static func descriptorEntry(of directory: ZIPDirectory, top: ArraySlice<UInt8>, label: String) throws(ArchiveError) -> Int {
        let suffix = Array(".dzi".utf8)
        var found: [Int] = []
        for index in 0..<directory.count {
            let rest = directory.name(index).dropFirst(top.count + 1)
            if rest.count > suffix.count, !rest.contains(UInt8(ascii: "/")), rest.reversed().starts(with: suffix.reversed()) { found.append(index) }
        }
        guard found.count == 1 else {
            throw ArchiveError("\(label): \(found.isEmpty ? "no" : "\(found.count)") .dzi descriptors in the top folder; an SZI has one")
        }
        return found[0]
    }
}
