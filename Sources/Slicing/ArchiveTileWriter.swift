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
    init(path: String, name: String, fileExtension: String, zip64Threshold: UInt64 = UInt64(UInt32.max)) throws(SliceError) {
        do {
            archive = try ZIPWriter(path: path, zip64Threshold: zip64Threshold)
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

    /// Appends the properties (`NAME/NAME_files/vips-properties.xml` and `NAME/scan-properties.xml`, as libvips writes
    /// them in an SZI) when there are any, then the descriptor, and writes the central directory; returns the
    /// archive's size in bytes.
    func finish(descriptor: String, properties: PyramidProperties? = nil) throws(SliceError) -> UInt64 {
        var entries: [(name: String, text: String)] = []
        if let properties {
            entries.append(("\(name)/\(name)_files/vips-properties.xml", properties.vipsXML()))
            if let scan = properties.scanXML() { entries.append(("\(name)/scan-properties.xml", scan)) }
        }
        entries.append(("\(name)/\(name).dzi", descriptor))
        do throws(ArchiveError) {
            for entry in entries {
                try Array(entry.text.utf8).withUnsafeBytes { bytes in
                    Result { () throws(ArchiveError) in try archive.append(name: entry.name, bytes: bytes) }
                }.get()
            }
            return try archive.finish()
        } catch {
            throw SliceError(.write, error.message)
        }
    }
}
