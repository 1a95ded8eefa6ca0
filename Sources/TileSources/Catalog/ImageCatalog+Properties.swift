import Archive
import HTTPCore
import Slicing

extension ImageCatalog {
    /// What the folder pyramid whose tiles are in `files` records of its source: `files/vips-properties.xml` as
    /// `tiler slice` and `vips dzsave` write it; nil when there is none. One that cannot be read or parsed is left
    /// out with one log line naming the image: the pyramid is served all the same.
    package func recordedProperties(files: String, image name: String) -> PyramidProperties? {
        let path = files + "/vips-properties.xml"
        let file: LoadedFile
        do {
            file = try FileLoader.load(path, inside: root, maxBytes: PyramidProperties.maxXMLBytes)
        } catch {
            if error.kind != .notFound { logger.warning("Serving \(name) without its recorded properties: \(error.message)") }
            return nil
        }
        return parsed([Array(file.body)], image: name)
    }

    /// What the SZI `index` records of its source: its `vips-properties.xml`, then its `scan-properties.xml` (whose
    /// vendor, objective and microns per pixel count only where the first lacks them); nil when it has neither.
    package func recordedProperties(archive index: SZIArchive, image name: String) -> PyramidProperties? {
        let files = [index.propertiesXML, index.scanPropertiesXML].compactMap { $0 }
        return files.isEmpty ? nil : parsed(files, image: name)
    }

    /// The properties of every file in `files` (``PyramidProperties/init(xmlFiles:)``); nil, with one log line, when
    /// one is not a properties file.
    private func parsed(_ files: [[UInt8]], image name: String) -> PyramidProperties? {
        do {
            return try PyramidProperties(xmlFiles: files)
        } catch {
            logger.warning("Serving \(name) without its recorded properties: \(error.message)")
            return nil
        }
    }
}
