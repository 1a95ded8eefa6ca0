import Archive

/// Writes tiles as entries `NAME/NAME_files/<level>/<column>_<row>.<ext>` of one stored ZIP (an SZI), and the
/// descriptor as `NAME/NAME.dzi` at the end (after the properties, when there are any): the folder layout's names under one top folder, as libvips writes them.
///
/// Entries are appended in the order tiles are finished, from all worker threads at once (see ``ZIPWriter``).
struct ArchiveTileWriter: TileSink {
    /// The archive being written.
    let archive: ZIPWriter
    /// The pyramid name: the top folder and the stem of the `.dzi` and `_files` names.
    let name: String
    /// The tile extension without a dot.
    let fileExtension: String

    /// Creates the archive at `path`, which must not exist.
    /// `onWritten`: see ``ZIPWriter/init(path:zip64Threshold:onWritten:)``.
    init(
        path: String, name: String, fileExtension: String, zip64Threshold: UInt64 = UInt64(UInt32.max),
        onWritten: (@Sendable (_ through: UInt64) -> Void)? = nil
    ) throws(SliceError) {
        do {
            archive = try ZIPWriter(path: path, zip64Threshold: zip64Threshold, onWritten: onWritten)
        } catch {
            throw SliceError(.write, error.message)
        }
        self.name = name
        self.fileExtension = fileExtension
    }

    func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError) {
        let entry = "\(name)/\(name)_files/\(level)/\(column)_\(row).\(fileExtension)"
        do throws(ArchiveError) {
            try bytes.withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try archive.append(name: entry, bytes: bytes) } }.get()
        } catch {
            throw SliceError(.write, "cannot write tile \(entry): \(error.message)")
        }
    }

    /// Appends the associated images kept (`NAME/NAME_files/associated/KIND.jpg`) and the properties
    /// (`NAME/NAME_files/vips-properties.xml` and `NAME/scan-properties.xml`, as libvips writes them in an SZI) when
    /// there are any, then the descriptor, and writes the central directory; returns the
    /// archive's size in bytes.
    func finish(descriptor: String, properties: PyramidProperties? = nil, associated: [AssociatedImage] = []) throws(SliceError) -> UInt64 {
        var entries: [(name: String, bytes: [UInt8])] = associated.map { ("\(name)/\(name)_files/associated/\($0.kind).jpg", $0.jpeg) }
        if let properties {
            entries.append(("\(name)/\(name)_files/vips-properties.xml", Array(properties.vipsXML().utf8)))
            if let scan = properties.scanXML() { entries.append(("\(name)/scan-properties.xml", Array(scan.utf8))) }
        }
        entries.append(("\(name)/\(name).dzi", Array(descriptor.utf8)))
        do throws(ArchiveError) {
            for entry in entries {
                try entry.bytes.withUnsafeBytes { bytes in
                    Result { () throws(ArchiveError) in try archive.append(name: entry.name, bytes: bytes) }
                }.get()
            }
            return try archive.finish()
        } catch {
            throw SliceError(.write, error.message)
        }
    }
}
